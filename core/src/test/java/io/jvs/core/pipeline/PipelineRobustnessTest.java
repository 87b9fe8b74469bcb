package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random and mutilated frames: the pipeline never throws, and every frame gets exactly one
 * verdict (frames in = transmitted + passed + dropped).
 */
class PipelineRobustnessTest
{
    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 25);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldAccountForEveryFrameWhateverItHolds(final long seed)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s wlc", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m",
                "-a -t 10.0.0.100:80 -r 192.168.1.3:80 -g",
                "-A -u 10.0.0.100:53 -s sh", "-a -u 10.0.0.100:53 -r 192.168.1.4:53 -i",
                "-A -t [2001:db8::100]:443 -s mh", "-a -t [2001:db8::100]:443 -r [2001:db8:1::2]:443 -m")
            .neighbour("192.168.1.2", 0x0202L).neighbour("192.168.1.3", 0x0203L).neighbour("192.168.1.4", 0x0204L)
            .neighbour("2001:db8:1::2", 0x0205L)
            .start();
        final SplittableRandom random = new SplittableRandom(seed);
        long sent = 0;
        for (int burst = 0; burst < 60; burst++)
        {
            final byte[][] frames = new byte[1 + random.nextInt(64)][];
            for (int i = 0; i < frames.length; i++)
            {
                frames[i] = mutate(base(random), random);
            }
            final PipelineFixture.Result[] results = fixture.send(frames);
            for (final PipelineFixture.Result result : results)
            {
                assertThat(Verdict.kind(result.verdict())).isBetween(Verdict.TRANSMIT, Verdict.DROP);
            }
            sent += frames.length;
            fixture.nowNs += random.nextInt(2_000_000_000);
        }
        final WorkerCounters counters = fixture.pipeline.counters();
        assertThat(counters.frames()).isEqualTo(sent);
        assertThat(counters.transmitted() + counters.passed() + counters.dropped()).isEqualTo(sent);
    }

    private static byte[] base(final SplittableRandom random)
    {
        final IpAddress client = IpAddress.ofV4(random.nextInt());
        final IpAddress client6 = IpAddress.ofV6(0x2001_0DB8_FFFF_0000L, random.nextLong());
        final int flags = new int[] {SYN, ACK, FIN | ACK, RST, SYN | ACK, 0}[random.nextInt(6)];
        return switch (random.nextInt(7))
        {
            case 0 -> frame(JVS_MAC, ROUTER_MAC, client, IpAddress.parse("10.0.0.100"), 1 + random.nextInt(64),
                Segment.tcp(random.nextInt(65536), 80, flags, random.nextInt(200)));
            case 1 -> frame(JVS_MAC, ROUTER_MAC, client, IpAddress.parse("10.0.0.100"), 64,
                Segment.udp(random.nextInt(65536), 53, random.nextInt(1400)));
            case 2 -> frame(JVS_MAC, ROUTER_MAC, client6, IpAddress.parse("2001:db8::100"), 64,
                Segment.tcp(random.nextInt(65536), 443, flags, random.nextInt(100)));
            case 3 -> frame(JVS_MAC, 0x0202L, IpAddress.parse("192.168.1.2"), client, 64,
                Segment.tcp(8080, random.nextInt(65536), flags, 10));
            case 4 -> rawIpv4(JVS_MAC, ROUTER_MAC, client, IpAddress.parse("10.0.0.100"), 64, UDP,
                random.nextInt(0x4000), random.nextInt(65536), payload(random.nextInt(300)));
            case 5 -> icmpErrorV4(JVS_MAC, ROUTER_MAC, client, IpAddress.parse("10.0.0.100"), 3, random.nextInt(16),
                frame(0, 0, IpAddress.parse("10.0.0.100"), client, 64, Segment.tcp(80, random.nextInt(65536), ACK, 0)));
            default ->
            {
                final byte[] garbage = new byte[random.nextInt(100)];
                random.nextBytes(garbage);
                yield garbage;
            }
        };
    }

    /** Truncates, flips bytes in the headers, or leaves the frame alone. */
    private static byte[] mutate(final byte[] frame, final SplittableRandom random)
    {
        switch (random.nextInt(4))
        {
            case 0 ->
            {
                return Arrays.copyOf(frame, random.nextInt(frame.length + 1));
            }
            case 1 ->
            {
                final byte[] copy = frame.clone();
                for (int flips = 1 + random.nextInt(4); flips > 0 && copy.length > 0; flips--)
                {
                    copy[random.nextInt(Math.min(copy.length, 80))] = (byte)random.nextInt(256);
                }
                return copy;
            }
            default ->
            {
                return frame;
            }
        }
    }
}
