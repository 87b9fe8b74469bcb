package io.jvs.forwarder.port.pcap;

import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.EndReason;
import io.jvs.core.pcap.PcapReader;
import io.jvs.core.pipeline.FrameBurst;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Capture files for the pcap port tests: tcpdump's test corpus, found as core's tests find it (beside the
 * checkout, or -Djvs.tcpdumpCorpus=DIR), and reading a capture both through jvs's own reader and a port.
 */
final class Captures
{
    private static final String CORPUS = "shared/corpus/tcpdump-tests";

    /** A record or frame: its bytes and capture time. */
    record Frame(byte[] bytes, long timestampNs)
    {
    }

    private Captures()
    {
    }

    static Path corpus(final String name)
    {
        final String property = System.getProperty("jvs.tcpdumpCorpus");
        if (property != null)
        {
            return Path.of(property, name);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent())
        {
            for (final Path candidate : List.of(dir.resolve(CORPUS), dir.resolve("..").resolve(CORPUS)))
            {
                if (Files.isDirectory(candidate))
                {
                    return candidate.resolve(name).normalize();
                }
            }
        }
        return fail("the tcpdump test corpus is missing: no %s above %s (set -Djvs.tcpdumpCorpus=DIR)", CORPUS,
            Path.of("").toAbsolutePath());
    }

    /**
     * Asserts two lists hold the same frames, bytes and timestamps, in the same order.
     */
    static void assertSameFrames(final List<Frame> actual, final List<Frame> expected)
    {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < actual.size(); i++)
        {
            assertThat(actual.get(i).bytes()).as("frame %d", i).isEqualTo(expected.get(i).bytes());
            assertThat(actual.get(i).timestampNs()).as("frame %d", i).isEqualTo(expected.get(i).timestampNs());
        }
    }

    /**
     * @return every record of the file as jvs's own reader sees it; the file must end cleanly.
     */
    static List<Frame> readWithCore(final Path file)
    {
        final List<Frame> frames = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(file))
        {
            while (reader.next())
            {
                frames.add(new Frame(Frames.read(reader.address(), reader.capturedLength()), reader.timestampNs()));
            }
            assertThat(reader.endReason()).as(reader.toString()).isEqualTo(EndReason.END_OF_FILE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return frames;
    }

    /**
     * @return every frame the port delivers until its end, releasing each burst after copying it.
     */
    static List<Frame> readWithPort(final PcapFilePort port)
    {
        final List<Frame> frames = new ArrayList<>();
        final FrameBurst burst = new FrameBurst();
        for (int polls = 0; !port.atEnd(); polls++)
        {
            assertThat(polls).as("the port reaches its end").isLessThan(1_000_000);
            burst.clear();
            port.receive(burst, 0);
            for (int i = 0; i < burst.count; i++)
            {
                frames.add(new Frame(Frames.read(burst.address(i), burst.length(i)),
                    port.recordTimestampNs(burst, i)));
            }
            port.release(burst);
        }
        assertThat(port.pool().freeCount()).isEqualTo(port.pool().bufferCount());
        return frames;
    }
}
