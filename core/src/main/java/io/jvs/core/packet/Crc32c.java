package io.jvs.core.packet;

/**
 * CRC-32C (Castagnoli), the SCTP checksum (RFC 9260 appendix A), over off-heap bytes: slicing by eight,
 * so a NAT rewrite of an SCTP port (which the CRC covers) costs a pass over the packet without
 * allocating a buffer view.
 */
public final class Crc32c
{
    private static final int POLYNOMIAL = 0x82F6_3B78;
    private static final int[][] TABLES = new int[8][256];

    static
    {
        for (int n = 0; n < 256; n++)
        {
            int crc = n;
            for (int k = 0; k < 8; k++)
            {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ POLYNOMIAL : crc >>> 1;
            }
            TABLES[0][n] = crc;
        }
        for (int n = 0; n < 256; n++)
        {
            int crc = TABLES[0][n];
            for (int t = 1; t < 8; t++)
            {
                crc = TABLES[0][crc & 0xFF] ^ (crc >>> 8);
                TABLES[t][n] = crc;
            }
        }
    }

    private Crc32c()
    {
    }

    /**
     * @param address the first byte.
     * @param length  how many bytes.
     * @return the CRC-32C of the bytes (initial value and final XOR 0xFFFFFFFF, as SCTP uses it).
     */
    public static int compute(final long address, final int length)
    {
        int crc = ~0;
        int i = 0;
        final int[] t0 = TABLES[0];
        final int[] t1 = TABLES[1];
        final int[] t2 = TABLES[2];
        final int[] t3 = TABLES[3];
        final int[] t4 = TABLES[4];
        final int[] t5 = TABLES[5];
        final int[] t6 = TABLES[6];
        final int[] t7 = TABLES[7];
        for (; i + 8 <= length; i += 8)
        {
            // Bytes in memory order, the first one lowest, as the reflected CRC consumes them.
            final long bytes = Long.reverseBytes(Frames.i64(address + i));
            final int low = (int)bytes ^ crc;
            final int high = (int)(bytes >>> 32);
            crc = t7[low & 0xFF] ^ t6[(low >>> 8) & 0xFF] ^ t5[(low >>> 16) & 0xFF] ^ t4[low >>> 24] ^
                t3[high & 0xFF] ^ t2[(high >>> 8) & 0xFF] ^ t1[(high >>> 16) & 0xFF] ^ t0[high >>> 24];
        }
        for (; i < length; i++)
        {
            crc = t0[(crc ^ Frames.u8(address + i)) & 0xFF] ^ (crc >>> 8);
        }
        return ~crc;
    }

    /**
     * Recomputes the checksum of an SCTP packet in place (the field is taken as zero while summing).
     *
     * @param sctp   the SCTP common header.
     * @param length the SCTP packet's length.
     */
    public static void updateSctp(final long sctp, final int length)
    {
        Frames.putI32(sctp + L4Headers.SCTP_CHECKSUM_OFFSET, 0);
        // SCTP stores its CRC in little-endian byte order.
        Frames.putI32(sctp + L4Headers.SCTP_CHECKSUM_OFFSET, Integer.reverseBytes(compute(sctp, length)));
    }
}
