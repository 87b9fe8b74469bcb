package io.jvs.forwarder.l2;

import io.jvs.forwarder.port.memory.FrameRecorder;
import io.jvs.forwarder.port.memory.MemoryPort;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UdpFlowGeneratorTest
{
    private static final byte[] DESTINATION_MAC = {2, (byte)0xb0, 0, 0, 0, 2};
    private static final byte[] SOURCE_MAC = {2, (byte)0xb0, 0, 0, 0, 1};
    private static final byte[] VIP = {10, 0, 0, 100};

    @Test
    void shouldSendValidUdpFramesOverTheBenchmarks16064Flows()
    {
        final FrameRecorder recorder = new FrameRecorder();
        try (MemoryPort port = new MemoryPort(0, null, new io.jvs.forwarder.port.FramePool(128, 2048, 0), 64, 64,
            recorder);
             UdpFlowGenerator generator = new UdpFlowGenerator(port, 64, DESTINATION_MAC, SOURCE_MAC, VIP, 80))
        {
            final Set<String> flows = new HashSet<>();
            for (int burst = 0; burst < 16064 * 2 / 64; burst++)
            {
                recorder.clear();
                assertThat(generator.sendBurst()).isEqualTo(64);
                final List<byte[]> frames = recorder.frames();
                for (final byte[] frame : frames)
                {
                    assertThat(frame).hasSize(60);
                    assertThat(u16(frame, 12)).isEqualTo(0x0800);
                    assertThat(ipv4ChecksumOfHeader(frame)).as("header sums to 0xffff").isEqualTo(0xFFFF);
                    assertThat(frame[23]).isEqualTo((byte)17);
                    assertThat(new byte[] {frame[30], frame[31], frame[32], frame[33]}).isEqualTo(VIP);
                    assertThat(u16(frame, 36)).isEqualTo(80);
                    assertThat(frame[26] & 0xFF).isEqualTo(172);
                    assertThat(frame[27] & 0xFF).isEqualTo(16);
                    assertThat(frame[28] & 0xFF).isBetween(0, 63);
                    assertThat(frame[29] & 0xFF).isBetween(1, 251);
                    assertThat(u16(frame, 34)).isBetween(0x4000, 0x400F);
                    flows.add((frame[28] & 0xFF) + "." + (frame[29] & 0xFF) + ":" + u16(frame, 34));
                }
            }
            assertThat(flows).as("lcm(64, 251, 16) distinct flows").hasSize(16064);
        }
    }

    @Test
    void shouldRefuseABurstLargerThanAFrameBurst()
    {
        try (MemoryPort port = new MemoryPort(0, null))
        {
            assertThatThrownBy(() -> new UdpFlowGenerator(port, 257, DESTINATION_MAC, SOURCE_MAC, VIP, 80))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("burst 257");
        }
    }

    private static int u16(final byte[] frame, final int offset)
    {
        return (frame[offset] & 0xFF) << 8 | frame[offset + 1] & 0xFF;
    }

    private static int ipv4ChecksumOfHeader(final byte[] frame)
    {
        int sum = 0;
        for (int offset = 14; offset < 34; offset += 2)
        {
            sum += u16(frame, offset);
        }
        while (sum > 0xFFFF)
        {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return sum;
    }
}
