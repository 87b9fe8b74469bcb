package io.jvs.forwarder.port.packet;

import io.jvs.nativebindings.packet.AfPacket;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Ring geometry is checked where it is made, with a message that names the bad value.
 */
class AfPacketSettingsTest
{
    private static final AfPacketSettings D = AfPacketSettings.DEFAULT;

    @Test
    void shouldAcceptTheDefaultsAndDescribeThem()
    {
        assertThat(D.describe()).contains("64 x 256 KiB", "TPACKET_V3", "qdisc bypass on", "no fanout");
        assertThat(D.describe()).contains("(linear)");
        assertThat(D.linearTransmit()).isTrue();
        assertThat(D.txFrameCapacity()).isEqualTo(2048 - 48 - 10);
        assertThat(D.withLinearTransmit(false).txFrameCapacity()).isEqualTo(2048 - 48);
        assertThat(D.withLinearTransmit(false).describe()).doesNotContain("linear");
        assertThat(D.withTxRing(AfPacket.TPACKET_V2, 4096, 2).withLinearTransmit(false).txFrameCapacity())
            .isEqualTo(2048 - 32);
        assertThat(D.withStealing(true).withFanout(7, 0).withLinearTransmit(false).withStealing(false).linearTransmit())
            .isFalse();
        assertThat(D.withFanout(7, AfPacket.PACKET_FANOUT_HASH).describe()).contains("fanout group 7");
        assertThat(D.stealFrames()).isFalse();
        assertThat(D.withStealing(true).stealFrames()).isTrue();
        assertThat(D.withStealing(true).withReceiveBurst(8).withFanout(7, 0).stealFrames()).isTrue();
    }

    @Test
    void shouldKeepTheStealModeAndTellAProgramFanoutApart()
    {
        assertThat(D.steal()).isEqualTo(AfPacketSteal.NONE);
        assertThat(D.withStealing(true).steal()).as("bench l2fwd --steal").isEqualTo(AfPacketSteal.ALL);
        assertThat(D.withSteal(AfPacketSteal.JVS_TRAFFIC).withFanout(3, 0).withTxRing(2, 4096, 2).steal())
            .isEqualTo(AfPacketSteal.JVS_TRAFFIC);
        assertThat(D.withSteal(AfPacketSteal.JVS_TRAFFIC).stealFrames()).isTrue();
        assertThatThrownBy(() -> D.withSteal(null)).hasMessageContaining("steal mode is required");

        assertThat(D.fanoutByProgram()).isFalse();
        assertThat(D.withFanout(9, AfPacket.PACKET_FANOUT_HASH).fanoutByProgram()).isFalse();
        final AfPacketSettings byProgram = D.withFanout(9, AfPacket.PACKET_FANOUT_EBPF);
        assertThat(byProgram.fanoutByProgram()).isTrue();
        assertThat(byProgram.describe()).contains("fanout group 9 mode/flags 0x7 (by program)");
        assertThat(D.withFanout(9, AfPacket.PACKET_FANOUT_EBPF | AfPacket.PACKET_FANOUT_FLAG_DEFRAG)
            .fanoutByProgram()).isTrue();
    }

    @Test
    void shouldRefuseBadReceiveGeometry()
    {
        assertThatThrownBy(() -> D.withRxRing(100_000, 4, 4))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("receive block size 100000 is not a positive multiple of the page size 4096");
        assertThatThrownBy(() -> D.withRxRing(4096, 0, 4)).hasMessageContaining("receive block count 0");
        assertThatThrownBy(() -> D.withRxRing(4096, 4, 0)).hasMessageContaining("retire timeout 0 ms");
        assertThatThrownBy(() -> new AfPacketSettings(4096, 4, 2040, 4, 128, 2, 4096, 2048, 2, true, -1, 0, 64,
            AfPacketSteal.NONE, true))
            .hasMessageContaining("receive frame size 2040 is not a positive multiple of 16");
        assertThatThrownBy(() -> new AfPacketSettings(4096, 4, 3072, 4, 128, 2, 4096, 2048, 2, true, -1, 0, 64,
            AfPacketSteal.NONE, true))
            .hasMessageContaining("receive block size 4096 is not a multiple of the frame size 3072");
        assertThatThrownBy(() -> new AfPacketSettings(4096, 4, 2048, 4, 64, 2, 4096, 2048, 2, true, -1, 0, 64,
            AfPacketSteal.NONE, true))
            .hasMessageContaining("headroom 64 not in 128..1024");
    }

    @Test
    void shouldRefuseBadTransmitGeometryAndOptions()
    {
        assertThatThrownBy(() -> D.withTxRing(0, 4096, 2)).hasMessageContaining("transmit ring version 0");
        assertThatThrownBy(() -> D.withTxRing(2, 6144, 3))
            .hasMessageContaining("transmit block size 6144 is not a multiple of both the page size");
        assertThatThrownBy(() -> D.withTxRing(2, 4096, 3))
            .hasMessageContaining("transmit frame count 3 is not a positive multiple of the 2 frames per block");
        assertThatThrownBy(() -> D.withFanout(70_000, 0)).hasMessageContaining("fanout group 70000");
        assertThatThrownBy(() -> D.withReceiveBurst(257)).hasMessageContaining("receive burst 257");
    }
}
