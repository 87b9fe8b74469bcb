package io.jvs.nativebindings.xdp;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The AF_XDP structures against the sizes and offsets of Linux 6.18 (kernel BTF, in kernel-bypass.md).
 * {@code XdpKernelTest} checks the same against the running kernel.
 */
class XdpLayoutsTest
{
    @Test
    void shouldLayOutUmemRegWithTxMetadataLength()
    {
        assertThat(XdpUmemReg.SIZE).isEqualTo(32);
        assertThat(new int[] {XdpUmemReg.ADDR_OFFSET, XdpUmemReg.LEN_OFFSET, XdpUmemReg.CHUNK_SIZE_OFFSET,
            XdpUmemReg.HEADROOM_OFFSET, XdpUmemReg.FLAGS_OFFSET, XdpUmemReg.TX_METADATA_LEN_OFFSET})
            .containsExactly(0, 8, 16, 20, 24, 28);
    }

    @Test
    void shouldLayOutRingOffsetsWithFlagsLast()
    {
        assertThat(XdpRingOffset.SIZE).isEqualTo(32);
        assertThat(new int[] {XdpRingOffset.PRODUCER_OFFSET, XdpRingOffset.CONSUMER_OFFSET,
            XdpRingOffset.DESC_OFFSET, XdpRingOffset.FLAGS_OFFSET}).containsExactly(0, 8, 16, 24);
    }

    @Test
    void shouldLayOutMmapOffsetsAsFourRingOffsets()
    {
        assertThat(XdpMmapOffsets.SIZE).isEqualTo(128);
        assertThat(new int[] {XdpMmapOffsets.RX_OFFSET, XdpMmapOffsets.TX_OFFSET, XdpMmapOffsets.FILL_OFFSET,
            XdpMmapOffsets.COMPLETION_OFFSET}).containsExactly(0, 32, 64, 96);
    }

    @Test
    void shouldLayOutSockaddrXdp()
    {
        assertThat(SockaddrXdp.SIZE).isEqualTo(16);
        assertThat(new int[] {SockaddrXdp.FAMILY_OFFSET, SockaddrXdp.FLAGS_OFFSET, SockaddrXdp.IFINDEX_OFFSET,
            SockaddrXdp.QUEUE_ID_OFFSET, SockaddrXdp.SHARED_UMEM_FD_OFFSET}).containsExactly(0, 2, 4, 8, 12);
    }

    @Test
    void shouldLayOutDescriptorsAndRingEntries()
    {
        assertThat(XdpDesc.SIZE).isEqualTo(16);
        assertThat(new int[] {XdpDesc.ADDR_OFFSET, XdpDesc.LEN_OFFSET, XdpDesc.OPTIONS_OFFSET})
            .containsExactly(0, 8, 12);
        assertThat(AfXdp.UMEM_RING_ENTRY_SIZE).isEqualTo(8);
    }

    @Test
    void shouldLayOutStatisticsInTheirSixCounterForm()
    {
        assertThat(XdpStatistics.SIZE).isEqualTo(48);
        assertThat(new int[] {XdpStatistics.RX_DROPPED_OFFSET, XdpStatistics.RX_INVALID_DESCS_OFFSET,
            XdpStatistics.TX_INVALID_DESCS_OFFSET, XdpStatistics.RX_RING_FULL_OFFSET,
            XdpStatistics.RX_FILL_RING_EMPTY_DESCS_OFFSET, XdpStatistics.TX_RING_EMPTY_DESCS_OFFSET})
            .containsExactly(0, 8, 16, 24, 32, 40);
    }

    @Test
    void shouldLayOutOptions()
    {
        assertThat(XdpOptions.SIZE).isEqualTo(4);
        assertThat(XdpOptions.FLAGS_OFFSET).isZero();
    }

    @Test
    void shouldUseTheKernelsConstants()
    {
        assertThat(new int[] {AfXdp.AF_XDP, AfXdp.SOL_XDP}).containsExactly(44, 283);
        assertThat(new int[] {AfXdp.XDP_MMAP_OFFSETS, AfXdp.XDP_RX_RING, AfXdp.XDP_TX_RING, AfXdp.XDP_UMEM_REG,
            AfXdp.XDP_UMEM_FILL_RING, AfXdp.XDP_UMEM_COMPLETION_RING, AfXdp.XDP_STATISTICS, AfXdp.XDP_OPTIONS})
            .containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(new long[] {AfXdp.XDP_PGOFF_RX_RING, AfXdp.XDP_PGOFF_TX_RING, AfXdp.XDP_UMEM_PGOFF_FILL_RING,
            AfXdp.XDP_UMEM_PGOFF_COMPLETION_RING}).containsExactly(0L, 0x80000000L, 0x100000000L, 0x180000000L);
        assertThat(new int[] {AfXdp.XDP_SHARED_UMEM, AfXdp.XDP_COPY, AfXdp.XDP_ZEROCOPY, AfXdp.XDP_USE_NEED_WAKEUP,
            AfXdp.XDP_USE_SG}).containsExactly(1, 2, 4, 8, 16);
        assertThat(new int[] {AfXdp.XDP_UMEM_UNALIGNED_CHUNK_FLAG, AfXdp.XDP_UMEM_TX_SW_CSUM,
            AfXdp.XDP_UMEM_TX_METADATA_LEN}).containsExactly(1, 2, 4);
        assertThat(new int[] {AfXdp.XDP_RING_NEED_WAKEUP, AfXdp.XDP_PKT_CONTD, AfXdp.XDP_TX_METADATA,
            AfXdp.XDP_OPTIONS_ZEROCOPY}).containsExactly(1, 1, 2, 1);
        assertThat(AfXdp.XSK_UNALIGNED_BUF_ADDR_MASK).isEqualTo(0x0000_FFFF_FFFF_FFFFL);
    }
}
