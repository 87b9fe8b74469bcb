package io.jvs.forwarder.port.pcap;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.pcap.Captures.Frame;
import io.jvs.nativebindings.testing.TestNetwork;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The file port delivers what is in the file: the same frames and timestamps as jvs's own reader finds, the
 * same subset as tcpdump for a filter, and then its end.
 */
class PcapFilePortTest
{
    private static final int CAPACITY = 2048 - 256;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"afs.pcap", "pim-packet-assortment.pcap", "huge-tipc-messages.pcap", "802.1ad_QinQ.pcap",
        "of13_ericsson.pcapng", "OSPFv2_Capture_FINAL.pcapng", "nhrp.pcapng", "msnlb2.pcapng"})
    void shouldDeliverEveryRecordThatFitsAsTheCoreReaderReadsIt(final String name)
    {
        final Path file = Captures.corpus(name);
        final List<Frame> records = Captures.readWithCore(file);
        final List<Frame> fitting = records.stream().filter(frame -> frame.bytes().length <= CAPACITY).toList();

        try (PcapFilePort port = PcapFilePort.open(4, file))
        {
            final List<Frame> frames = Captures.readWithPort(port);

            assertThat(fitting).isNotEmpty();
            Captures.assertSameFrames(frames, fitting);
            assertThat(port.counters().rxFrames()).isEqualTo(fitting.size());
            assertThat(port.counters().rxTooLong()).isEqualTo(records.size() - fitting.size());
            assertThat(port.failure()).isEmpty();
            assertThat(port.linkType()).isEqualTo(EthernetFraming.DLT_EN10MB);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "afs.pcap | udp port 7000",
        "pim-packet-assortment.pcap | ip6",
        "of13_ericsson.pcapng | tcp[tcpflags] & tcp-push != 0",
        "802.1ad_QinQ.pcap | vlan and vlan and arp[6:2] = 2",
        "OSPFv2_Capture_FINAL.pcapng | ip proto 89 and ip[21] = 1",
        "nhrp.pcapng | less 150"})
    void shouldDeliverWhatTcpdumpSelectsWithTheSameFilter(final String name, final String filter)
    {
        final Path file = Captures.corpus(name);
        final Path selected = dir.resolve("selected.pcap");
        TestNetwork.run("tcpdump", "-r", file.toString(), "--time-stamp-precision=nano", "-w", selected.toString(),
            filter);
        final List<Frame> expected = Captures.readWithCore(selected);
        final int all = Captures.readWithCore(file).size();

        try (PcapFilePort port = PcapFilePort.open(0, file, PcapFileSettings.DEFAULT.withFilter(filter)
            .withBuffers(64, 65536 + 256, 256)))
        {
            final List<Frame> frames = Captures.readWithPort(port);

            Captures.assertSameFrames(frames, expected);
            assertThat(frames.size()).as("the filter selects some but not all").isBetween(1, all - 1);
        }
    }

    @Test
    void shouldReportTheEndOnlyWhenTheFileIsRead()
    {
        try (PcapFilePort port = PcapFilePort.open(0, Captures.corpus("afs.pcap"),
            PcapFileSettings.DEFAULT.withReceiveBurst(256)))
        {
            final FrameBurst burst = new FrameBurst();
            int frames = 0;
            while (!port.atEnd())
            {
                burst.clear();
                frames += port.receive(burst, 0);
                port.release(burst);
            }

            assertThat(frames).isEqualTo(Captures.readWithCore(Captures.corpus("afs.pcap")).size());
            assertThat(port.receive(burst, 0)).isZero();
            assertThat(port.atEnd()).isTrue();
            assertThat(port.failure()).isEmpty();
        }
    }

    @Test
    void shouldWaitForBuffersWhenThePipelineHoldsThemAll()
    {
        try (PcapFilePort port = PcapFilePort.open(0, Captures.corpus("afs.pcap"),
            PcapFileSettings.DEFAULT.withBuffers(8, 2048, 256).withReceiveBurst(256)))
        {
            final FrameBurst held = new FrameBurst();
            assertThat(port.receive(held, 0)).isEqualTo(8);
            final FrameBurst next = new FrameBurst();

            assertThat(port.receive(next, 0)).as("no buffer: libpcap is not asked for 'all'").isZero();
            assertThat(port.atEnd()).isFalse();

            port.release(held);
            assertThat(port.receive(next, 0)).isEqualTo(8);
            assertThat(next.address(0)).isEqualTo(held.address(7));
        }
    }

    @Test
    void shouldEndAnEmptyCaptureAtOnce()
    {
        try (PcapFilePort port = PcapFilePort.open(0, Captures.corpus("empty.pcapng")))
        {
            assertThat(port.receive(new FrameBurst(), 0)).isZero();
            assertThat(port.atEnd()).isTrue();
        }
    }

    @Test
    void shouldStopWithLibpcapsReasonAtATruncatedRecord() throws IOException
    {
        final Path source = Captures.corpus("afs.pcap");
        final Path truncated = dir.resolve("truncated.pcap");
        final byte[] bytes = Files.readAllBytes(source);
        Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length - 100));

        try (PcapFilePort port = PcapFilePort.open(0, truncated))
        {
            final List<Frame> frames = Captures.readWithPort(port);

            assertThat(frames).hasSize(Captures.readWithCore(source).size() - 1);
            assertThat(port.failure()).contains("truncated");
        }
    }
}
