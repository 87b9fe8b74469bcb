package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The UMEM's chunk accounting and address arithmetic, on plain memory (no kernel).
 */
class UmemTest
{
    private static final int CHUNKS = 16;
    private static final int CHUNK = 2048;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment region = arena.allocate((long)CHUNKS * CHUNK, 4096);
    private final Umem umem = Umem.over(region, CHUNKS, CHUNK);

    @AfterEach
    void free()
    {
        arena.close();
    }

    @Test
    void shouldLendEveryChunkOnceThenNone()
    {
        final Set<Integer> lent = new HashSet<>();
        for (int i = 0; i < CHUNKS; i++)
        {
            lent.add(umem.allocate());
        }
        assertThat(lent).hasSize(CHUNKS).allMatch(chunk -> chunk >= 0 && chunk < CHUNKS);
        assertThat(umem.freeCount()).isZero();
        assertThat(umem.allocate()).isEqualTo(Umem.NO_CHUNK);

        assertThat(umem.free(7)).isTrue();
        assertThat(umem.freeCount()).isEqualTo(1);
        assertThat(umem.allocate()).isEqualTo(7);
    }

    @Test
    void shouldRefuseADoubleFreeAndAChunkOutOfRangeAndCountThem()
    {
        final int chunk = umem.allocate();
        assertThat(umem.free(chunk)).isTrue();
        assertThat(umem.free(chunk)).isFalse();
        assertThat(umem.free(CHUNKS)).isFalse();
        assertThat(umem.free(-1)).isFalse();
        assertThat(umem.refusedFrees()).isEqualTo(3);
        assertThat(umem.freeCount()).isEqualTo(CHUNKS);
    }

    @Test
    void shouldMapOffsetsAddressesAndChunksOntoEachOther()
    {
        assertThat(umem.offsetOf(3)).isEqualTo(3L * CHUNK);
        // A received frame starts past the kernel's 256 bytes of headroom: still chunk 3.
        assertThat(umem.chunkOf(3L * CHUNK + 256)).isEqualTo(3);
        assertThat(umem.chunkOf(4L * CHUNK - 1)).isEqualTo(3);
        final long address = umem.addressOf(3L * CHUNK + 256);
        assertThat(address).isEqualTo(region.address() + 3L * CHUNK + 256);
        assertThat(umem.contains(address)).isTrue();
        assertThat(umem.offsetOfAddress(address)).isEqualTo(3L * CHUNK + 256);
        assertThat(umem.contains(region.address() - 1)).isFalse();
        assertThat(umem.contains(region.address() + (long)CHUNKS * CHUNK)).isFalse();
    }

    @Test
    void shouldRefuseChunkSizesTheKernelRefuses()
    {
        assertThatThrownBy(() -> Umem.over(region, 4, 1024)).hasMessageContaining("2048 or 4096");
        assertThatThrownBy(() -> Umem.over(region, 4, 3000)).hasMessageContaining("2048 or 4096");
        assertThatThrownBy(() -> Umem.over(region, 2, 8192)).hasMessageContaining("2048 or 4096");
        assertThatThrownBy(() -> Umem.over(region, 0, 2048)).hasMessageContaining("at least one chunk");
    }
}
