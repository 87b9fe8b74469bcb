package io.jvs.core.packet;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worked examples of the RFCs {@link Checksums} follows, with their numbers.
 */
class ChecksumRfcExamplesTest
{
    private final ByteBuffer memory = ByteBuffer.allocateDirect(64);
    private final long address = Frames.addressOf(memory);

    @Test
    void shouldSumTheNumericalExampleOfRfc1071()
    {
        // RFC 1071, "Numerical Examples": the bytes 00 01 f2 03 f4 f5 f6 f7 sum to 0xddf2, checksum 0x220d.
        Frames.write(new byte[] {0x00, 0x01, (byte)0xF2, 0x03, (byte)0xF4, (byte)0xF5, (byte)0xF6, (byte)0xF7},
            address);
        assertThat(Checksums.sum(address, 8)).isEqualTo(0xDDF2);
        assertThat(Checksums.checksum(address, 8)).isEqualTo(0x220D);
        // The sum is independent of byte order per 16-bit word and of how the words are grouped: the
        // same bytes starting one word later sum alike.
        Frames.write(new byte[] {0x00, 0x00, 0x00, 0x01, (byte)0xF2, 0x03, (byte)0xF4, (byte)0xF5, (byte)0xF6,
            (byte)0xF7}, address);
        assertThat(Checksums.sum(address, 10)).isEqualTo(0xDDF2);
    }

    @Test
    void shouldGiveZeroNotMinusZeroInTheExampleOfRfc1624()
    {
        // RFC 1624, "Numerical Examples": HC = 0xDD2F, m = 0x5555 becomes m' = 0x3285. Equation 3 gives
        // HC' = ~(0x22D0 + 0xAAAA + 0x3285) = ~0xFFFF = 0x0000, what a full recomputation gives; RFC 1141's
        // equation 2 would give 0xFFFF.
        assertThat(Checksums.update16(0xDD2F, 0x5555, 0x3285)).isEqualTo(0x0000);
        // And the change undone brings the checksum back.
        assertThat(Checksums.update16(0x0000, 0x3285, 0x5555)).isEqualTo(0xDD2F);
        // The same change as part of a 32-bit field.
        assertThat(Checksums.update32(0xDD2F, 0x0000_5555, 0x0000_3285)).isEqualTo(0x0000);
        assertThat(Checksums.update32(0xDD2F, 0x5555_0000, 0x3285_0000)).isEqualTo(0x0000);
    }

    @Test
    void shouldKeepUdpsNoChecksumAndWriteAComputedZeroAsAllOnes()
    {
        // RFC 768: a transmitted 0 means no checksum; a computed 0 is sent as 0xFFFF.
        assertThat(Checksums.updateUdp(0, 0x1234)).isZero();
        assertThat(Checksums.updateUdp(0x1234, Checksums.update16(0xDD2F, 0x5555, 0x3285))).isEqualTo(0xFFFF);
        assertThat(Checksums.updateUdp(0x1234, 0xFFFF)).isEqualTo(0xFFFF);
        assertThat(Checksums.updateUdp(0x1234, 0x0001)).isEqualTo(0x0001);
    }

    @Test
    void shouldDecrementTheTtlIntoZeroRatherThanMinusZero()
    {
        // The TTL|protocol word drops by 0x0100, so the checksum rises by 0x0100 with end-around carry:
        // 0xFEFF + 0x0100 = 0xFFFF, which a full computation writes as 0x0000; 0xFF00 + 0x0100 carries to 0x0001.
        for (final int[] example : new int[][] {{0xFEFF, 0x0000}, {0xFF00, 0x0001}, {0x1234, 0x1334}, {0xFEFE, 0xFFFE}})
        {
            memory.clear();
            Frames.write(new byte[20], address);
            Frames.putU8(address + 8, 64);
            Frames.putU16(address + 10, example[0]);
            assertThat(Checksums.decrementTtl(address)).isEqualTo(63);
            assertThat(Frames.u8(address + 8)).isEqualTo(63);
            assertThat(Frames.u16(address + 10)).as("from %04x", example[0]).isEqualTo(example[1]);
        }
    }
}
