package io.jvs.core.pcap;

/**
 * The timestamp resolution {@link PcapWriter} writes: it chooses the classic pcap magic number.
 */
public enum TimestampPrecision
{
    /** Magic {@code a1b2c3d4}; what every pcap reader understands. */
    MICROSECONDS(0xA1B2C3D4, 1_000),
    /** Magic {@code a1b23c4d}; libpcap 1.5 (2013) and later, Wireshark 1.8 and later. */
    NANOSECONDS(0xA1B23C4D, 1);

    private final int magic;
    private final int nanosPerUnit;

    TimestampPrecision(final int magic, final int nanosPerUnit)
    {
        this.magic = magic;
        this.nanosPerUnit = nanosPerUnit;
    }

    /**
     * @return the magic number, as the file's own byte order reads it.
     */
    public int magic()
    {
        return magic;
    }

    /**
     * @return nanoseconds per unit of the record header's fraction field: 1000 or 1.
     */
    public int nanosPerUnit()
    {
        return nanosPerUnit;
    }
}
