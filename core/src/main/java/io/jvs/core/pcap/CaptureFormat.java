package io.jvs.core.pcap;

/**
 * The file formats {@link PcapReader} reads.
 */
public enum CaptureFormat
{
    /** Classic pcap, magic {@code a1b2c3d4}: timestamps in seconds and microseconds. */
    PCAP_MICROSECONDS,
    /** Classic pcap, magic {@code a1b23c4d}: timestamps in seconds and nanoseconds. */
    PCAP_NANOSECONDS,
    /** pcapng: blocks, sections, per-interface link types and timestamp resolutions. */
    PCAPNG
}
