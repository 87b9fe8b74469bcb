package io.jvs.nativebindings.packet;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The AF_PACKET structures against the sizes and offsets of Linux 6.18 (kernel-bypass.md, linux/if_packet.h).
 * {@code PacketKernelTest} checks them against the running kernel.
 */
class PacketLayoutsTest
{
    @Test
    void shouldLayOutSockaddrLl()
    {
        assertThat(SockaddrLl.SIZE).isEqualTo(20);
        assertThat(new int[] {SockaddrLl.FAMILY_OFFSET, SockaddrLl.PROTOCOL_OFFSET, SockaddrLl.IFINDEX_OFFSET,
            SockaddrLl.HATYPE_OFFSET, SockaddrLl.PKTTYPE_OFFSET, SockaddrLl.HALEN_OFFSET, SockaddrLl.ADDR_OFFSET})
            .containsExactly(0, 2, 4, 8, 10, 11, 12);
    }

    @Test
    void shouldLayOutRingRequests()
    {
        assertThat(TpacketReq.SIZE).isEqualTo(16);
        assertThat(new int[] {TpacketReq.BLOCK_SIZE_OFFSET, TpacketReq.BLOCK_NR_OFFSET, TpacketReq.FRAME_SIZE_OFFSET,
            TpacketReq.FRAME_NR_OFFSET}).containsExactly(0, 4, 8, 12);
        assertThat(TpacketReq3.SIZE).isEqualTo(28);
        assertThat(new int[] {TpacketReq3.BLOCK_SIZE_OFFSET, TpacketReq3.BLOCK_NR_OFFSET,
            TpacketReq3.FRAME_SIZE_OFFSET, TpacketReq3.FRAME_NR_OFFSET, TpacketReq3.RETIRE_BLK_TOV_OFFSET,
            TpacketReq3.SIZEOF_PRIV_OFFSET, TpacketReq3.FEATURE_REQ_WORD_OFFSET})
            .containsExactly(0, 4, 8, 12, 16, 20, 24);
    }

    @Test
    void shouldPutTheBlockHeaderEightBytesIntoTheBlock()
    {
        assertThat(TpacketHdrV1.SIZE).isEqualTo(40);
        assertThat(new int[] {TpacketHdrV1.BLOCK_STATUS_OFFSET, TpacketHdrV1.NUM_PKTS_OFFSET,
            TpacketHdrV1.OFFSET_TO_FIRST_PKT_OFFSET, TpacketHdrV1.BLK_LEN_OFFSET, TpacketHdrV1.SEQ_NUM_OFFSET,
            TpacketHdrV1.TS_FIRST_PKT_OFFSET, TpacketHdrV1.TS_LAST_PKT_OFFSET})
            .containsExactly(0, 4, 8, 12, 16, 24, 32);

        assertThat(TpacketBlockDesc.SIZE).isEqualTo(48);
        assertThat(new int[] {TpacketBlockDesc.VERSION_OFFSET, TpacketBlockDesc.OFFSET_TO_PRIV_OFFSET,
            TpacketBlockDesc.HDR_OFFSET, TpacketBlockDesc.BLOCK_STATUS_OFFSET, TpacketBlockDesc.NUM_PKTS_OFFSET,
            TpacketBlockDesc.OFFSET_TO_FIRST_PKT_OFFSET, TpacketBlockDesc.BLK_LEN_OFFSET,
            TpacketBlockDesc.SEQ_NUM_OFFSET}).containsExactly(0, 4, 8, 8, 12, 16, 20, 24);
    }

    @Test
    void shouldLayOutV3FrameHeader()
    {
        assertThat(Tpacket3Hdr.SIZE).isEqualTo(48);
        assertThat(new int[] {Tpacket3Hdr.NEXT_OFFSET_OFFSET, Tpacket3Hdr.SEC_OFFSET, Tpacket3Hdr.NSEC_OFFSET,
            Tpacket3Hdr.SNAPLEN_OFFSET, Tpacket3Hdr.LEN_OFFSET, Tpacket3Hdr.STATUS_OFFSET, Tpacket3Hdr.MAC_OFFSET,
            Tpacket3Hdr.NET_OFFSET, Tpacket3Hdr.RXHASH_OFFSET, Tpacket3Hdr.VLAN_TCI_OFFSET,
            Tpacket3Hdr.VLAN_TPID_OFFSET}).containsExactly(0, 4, 8, 12, 16, 20, 24, 26, 28, 32, 36);
        assertThat(Tpacket3Hdr.HDRLEN).isEqualTo(68);
        assertThat(Tpacket3Hdr.TX_DATA_OFFSET).isEqualTo(48);
    }

    @Test
    void shouldLayOutV2FrameHeader()
    {
        assertThat(Tpacket2Hdr.SIZE).isEqualTo(32);
        assertThat(new int[] {Tpacket2Hdr.STATUS_OFFSET, Tpacket2Hdr.LEN_OFFSET, Tpacket2Hdr.SNAPLEN_OFFSET,
            Tpacket2Hdr.MAC_OFFSET, Tpacket2Hdr.NET_OFFSET, Tpacket2Hdr.SEC_OFFSET, Tpacket2Hdr.NSEC_OFFSET,
            Tpacket2Hdr.VLAN_TCI_OFFSET, Tpacket2Hdr.VLAN_TPID_OFFSET})
            .containsExactly(0, 4, 8, 12, 14, 16, 20, 24, 26);
        assertThat(Tpacket2Hdr.HDRLEN).isEqualTo(52);
        assertThat(Tpacket2Hdr.TX_DATA_OFFSET).isEqualTo(32);
    }

    @Test
    void shouldLayOutStatistics()
    {
        assertThat(TpacketStats.SIZE).isEqualTo(8);
        assertThat(new int[] {TpacketStats.PACKETS_OFFSET, TpacketStats.DROPS_OFFSET}).containsExactly(0, 4);
        assertThat(TpacketStatsV3.SIZE).isEqualTo(12);
        assertThat(new int[] {TpacketStatsV3.PACKETS_OFFSET, TpacketStatsV3.DROPS_OFFSET,
            TpacketStatsV3.FREEZE_Q_CNT_OFFSET}).containsExactly(0, 4, 8);
    }

    @Test
    void shouldPackTheFanoutArgumentAsGroupThenModeAndFlags()
    {
        assertThat(FanoutArgs.SIZE).isEqualTo(8);
        assertThat(new int[] {FanoutArgs.ID_OFFSET, FanoutArgs.TYPE_FLAGS_OFFSET, FanoutArgs.MAX_NUM_MEMBERS_OFFSET})
            .containsExactly(0, 2, 4);
        assertThat(AfPacket.fanoutArgument(4242, AfPacket.PACKET_FANOUT_HASH)).isEqualTo(4242);
        assertThat(AfPacket.fanoutArgument(7, AfPacket.PACKET_FANOUT_CPU | AfPacket.PACKET_FANOUT_FLAG_DEFRAG))
            .isEqualTo(0x8002_0007);
    }

    @Test
    void shouldAlignToSixteenBytes()
    {
        assertThat(new int[] {AfPacket.tpacketAlign(0), AfPacket.tpacketAlign(1), AfPacket.tpacketAlign(32),
            AfPacket.tpacketAlign(33), AfPacket.tpacketAlign(48)}).containsExactly(0, 16, 32, 48, 48);
    }

    @Test
    void shouldUseTheKernelsConstants()
    {
        assertThat(new int[] {AfPacket.AF_PACKET, AfPacket.SOL_PACKET, AfPacket.ETH_P_ALL}).containsExactly(17, 263, 3);
        assertThat(new int[] {AfPacket.PACKET_RX_RING, AfPacket.PACKET_STATISTICS, AfPacket.PACKET_AUXDATA,
            AfPacket.PACKET_VERSION, AfPacket.PACKET_HDRLEN, AfPacket.PACKET_TX_RING, AfPacket.PACKET_LOSS,
            AfPacket.PACKET_FANOUT, AfPacket.PACKET_QDISC_BYPASS, AfPacket.PACKET_IGNORE_OUTGOING})
            .containsExactly(5, 6, 8, 10, 11, 13, 14, 18, 20, 23);
        assertThat(new int[] {AfPacket.TPACKET_V2, AfPacket.TPACKET_V3}).containsExactly(1, 2);
        assertThat(new int[] {AfPacket.TP_STATUS_USER, AfPacket.TP_STATUS_COPY, AfPacket.TP_STATUS_LOSING,
            AfPacket.TP_STATUS_CSUMNOTREADY, AfPacket.TP_STATUS_VLAN_VALID, AfPacket.TP_STATUS_BLK_TMO,
            AfPacket.TP_STATUS_CSUM_VALID}).containsExactly(1, 2, 4, 8, 0x10, 0x20, 0x80);
        assertThat(new int[] {AfPacket.TP_STATUS_AVAILABLE, AfPacket.TP_STATUS_SEND_REQUEST,
            AfPacket.TP_STATUS_SENDING, AfPacket.TP_STATUS_WRONG_FORMAT}).containsExactly(0, 1, 2, 4);
        assertThat(new int[] {AfPacket.PACKET_FANOUT_HASH, AfPacket.PACKET_FANOUT_LB, AfPacket.PACKET_FANOUT_CPU,
            AfPacket.PACKET_FANOUT_ROLLOVER, AfPacket.PACKET_FANOUT_RND, AfPacket.PACKET_FANOUT_QM,
            AfPacket.PACKET_FANOUT_CBPF, AfPacket.PACKET_FANOUT_EBPF}).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(new int[] {AfPacket.PACKET_FANOUT_FLAG_ROLLOVER, AfPacket.PACKET_FANOUT_FLAG_UNIQUEID,
            AfPacket.PACKET_FANOUT_FLAG_IGNORE_OUTGOING, AfPacket.PACKET_FANOUT_FLAG_DEFRAG})
            .containsExactly(0x1000, 0x2000, 0x4000, 0x8000);
    }
}
