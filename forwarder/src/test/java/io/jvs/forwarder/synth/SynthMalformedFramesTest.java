package io.jvs.forwarder.synth;

import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.PacketParser;
import io.jvs.core.packet.ParsedBurst;
import io.jvs.core.packet.Verdict;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each kind of damage on its own, many times over, from IPv4 and IPv6 clients with and without a VLAN tag:
 * core's parser must drop every such frame for the kind's reason.
 */
class SynthMalformedFramesTest
{
    static Stream<Arguments> kinds()
    {
        final List<Arguments> arguments = new ArrayList<>();
        for (final MalformedKind kind : MalformedKind.values())
        {
            for (final boolean v6 : new boolean[] {false, true})
            {
                if (!(v6 && kind == MalformedKind.IHL_BELOW_FIVE))
                {
                    arguments.add(Arguments.of(kind, v6, 31L * kind.ordinal() + (v6 ? 1 : 0)));
                }
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void shouldBeDroppedForTheReasonOfItsKind(final MalformedKind kind, final boolean v6, final long seed)
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(4096 + FrameFactory.MEMORY_LENGTH);
        final long frame = Frames.addressOf(memory);
        final FrameFactory factory = new FrameFactory(frame + 4096, seed);
        final SplitMix64 random = new SplitMix64(seed);
        final PacketParser parser = new PacketParser(true, true);
        final ParsedBurst parsed = new ParsedBurst(1);

        for (int i = 0; i < 500; i++)
        {
            final int vlanId = i % 3 == 0 ? 100 + i % 8 : -1;
            factory.endpoint(i, i % 4, v6, vlanId, kind == MalformedKind.UDP_LENGTH_WRONG ? 53 : 80);
            final int length = MalformedFrames.write(factory, frame, kind, random, 32_768 + i);

            final int verdict = parser.parse(frame, length, parsed, 0);

            assertThat(Verdict.kind(verdict)).as("frame %d: %s", i, Verdict.toString(verdict)).isEqualTo(Verdict.DROP);
            assertThat(DropReason.of(Verdict.reason(verdict))).as("frame %d", i).isEqualTo(kind.dropReason());
        }
    }
}
