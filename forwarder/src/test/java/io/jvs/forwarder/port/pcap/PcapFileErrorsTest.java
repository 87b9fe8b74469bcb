package io.jvs.forwarder.port.pcap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A file port that cannot open says which file, which filter, and why.
 */
class PcapFileErrorsTest
{
    @TempDir
    Path dir;

    @Test
    void shouldNameAMissingFile()
    {
        final Path missing = dir.resolve("nowhere.pcap");

        assertThatThrownBy(() -> PcapFilePort.open(0, missing))
            .isInstanceOf(PcapPortException.class)
            .hasMessage("pcap file " + missing + " does not exist");
    }

    @Test
    void shouldRefuseADirectory()
    {
        assertThatThrownBy(() -> PcapFilePort.open(0, dir))
            .isInstanceOf(PcapPortException.class)
            .hasMessage("pcap file " + dir + " is not a readable file");
    }

    @Test
    void shouldPassOnLibpcapsReasonForAFileThatIsNoCapture() throws IOException
    {
        final Path text = Files.writeString(dir.resolve("notes.pcap"), "these are not packets, just some words\n");

        assertThatThrownBy(() -> PcapFilePort.open(0, text))
            .isInstanceOf(PcapPortException.class)
            .hasMessageStartingWith("pcap file " + text + ": libpcap cannot read it: ")
            .hasMessageContaining("unknown file format");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "tcp port 99999 | port 99999",
        "tcp and and udp | syntax error",
        "ether host 01:02 | illegal link layer address"})
    void shouldNameAFilterLibpcapCannotCompile(final String filter, final String libpcapSays)
    {
        final Path file = Captures.corpus("afs.pcap");

        assertThatThrownBy(() -> PcapFilePort.open(0, file, PcapFileSettings.DEFAULT.withFilter(filter)))
            .isInstanceOf(PcapPortException.class)
            .hasMessageContaining("filter \"" + filter + "\" for pcap file " + file)
            .hasMessageContaining(libpcapSays);
    }
}
