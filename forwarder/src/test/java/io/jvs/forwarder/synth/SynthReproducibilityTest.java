package io.jvs.forwarder.synth;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

class SynthReproducibilityTest
{
    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 0x5EED_5EEDL})
    void shouldWriteTheSameBytesForTheSameSeedAndOthersForAnother(final long seed) throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().seed(seed).packets(30_000).build();
        final SynthSettings other = SynthSettings.builder().seed(seed + 1).packets(30_000).build();

        final SynthSummary first = TraceSynthesizer.synthesize(settings, directory.resolve("a.pcap"));
        final SynthSummary second = TraceSynthesizer.synthesize(settings, directory.resolve("b.pcap"));
        TraceSynthesizer.synthesize(other, directory.resolve("c.pcap"));

        assertThat(sha256(directory.resolve("b.pcap"))).isEqualTo(sha256(directory.resolve("a.pcap")));
        assertThat(second).isEqualTo(first);
        assertThat(sha256(directory.resolve("c.pcap"))).isNotEqualTo(sha256(directory.resolve("a.pcap")));
        assertThat(TraceSynthesizer.rules(settings)).isEqualTo(TraceSynthesizer.rules(settings));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7})
    void shouldDependOnEverySettingThatShapesTheTraffic(final int services) throws Exception
    {
        final SynthSettings base = SynthSettings.builder().services(services).packets(5_000).build();
        final SynthSettings moreV6 = SynthSettings.builder().services(services).packets(5_000).ipv6Share(0.9).build();

        TraceSynthesizer.synthesize(base, directory.resolve("a.pcap"));
        TraceSynthesizer.synthesize(moreV6, directory.resolve("b.pcap"));

        assertThat(sha256(directory.resolve("b.pcap"))).isNotEqualTo(sha256(directory.resolve("a.pcap")));
    }

    private static String sha256(final Path file) throws IOException, NoSuchAlgorithmException
    {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
