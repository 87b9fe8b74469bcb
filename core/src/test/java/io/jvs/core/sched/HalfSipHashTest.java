package io.jvs.core.sched;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HalfSipHash} against the published hsiphash test vector for a 4-byte message on 64-bit kernels.
 * <p>
 * Source: the Linux kernel's {@code lib/tests/siphash_kunit.c} (formerly {@code lib/test_siphash.c}), the
 * {@code BITS_PER_LONG == 64} branch: key {@code {0x0706050403020100, 0x0f0e0d0c0b0a0908}}, and
 * {@code hsiphash_1u32(0x03020100, key)} must equal {@code test_vectors_hsiphash[4]}, {@code 0x88d38328}
 * (the hash of the four bytes 00 01 02 03). The other vectors of that table hash 0..63-byte messages and
 * do not apply to a one-word hash.
 */
class HalfSipHashTest
{
    private static final long KEY0 = 0x0706_0504_0302_0100L;
    private static final long KEY1 = 0x0F0E_0D0C_0B0A_0908L;

    @Test
    void shouldMatchTheKernelHsiphashVectorForOneWord()
    {
        assertThat(HalfSipHash.hash(KEY0, KEY1, 0x0302_0100)).isEqualTo(0x88D3_8328);
    }

    @Test
    void shouldDependOnEachKeyWordAndOnTheMessage()
    {
        final int reference = HalfSipHash.hash(KEY0, KEY1, 0x0302_0100);
        assertThat(HalfSipHash.hash(KEY0 ^ 1, KEY1, 0x0302_0100)).isNotEqualTo(reference);
        assertThat(HalfSipHash.hash(KEY0, KEY1 ^ 1, 0x0302_0100)).isNotEqualTo(reference);
        assertThat(HalfSipHash.hash(KEY0, KEY1, 0x0302_0101)).isNotEqualTo(reference);
        // The message is one 32-bit word: its sign bit is data, not an extension into the high word.
        assertThat(HalfSipHash.hash(KEY0, KEY1, 0x8302_0100)).isNotEqualTo(reference);
    }
}
