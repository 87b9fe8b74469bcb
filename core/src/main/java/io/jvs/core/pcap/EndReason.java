package io.jvs.core.pcap;

/**
 * Why a {@link PcapReader} stopped, or, for the reasons marked "at open", why
 * {@link PcapReader#open} refused a file ({@link PcapFormatException#reason()}).
 * <p>
 * Only {@link #END_OF_FILE} is a clean end: the last record ended exactly at the end of the file. Every
 * other reason means that the rest of the file, from {@link PcapReader#endOffset()} on, was not read;
 * every record delivered before it was complete and checked.
 */
public enum EndReason
{
    /** Not ended: {@link PcapReader#next()} may deliver more records. */
    NONE,
    /** Clean end: the last block or record ended exactly at the end of the file. */
    END_OF_FILE,
    /**
     * A record or block header is cut short by the end of the file, or its length claims more bytes
     * than remain: a truncated capture.
     */
    TRUNCATED_RECORD,
    /**
     * pcapng: a block length below the minimum for its type, not a multiple of 4, different in the
     * trailer from the header, or too small for the packet data the block says it holds.
     */
    BAD_BLOCK_LENGTH,
    /** A record's captured length is above the reader's sanity limit (256 KiB unless told otherwise). */
    CAPLEN_ABOVE_LIMIT,
    /** A record's captured length is above its original (wire) length. */
    CAPTURED_ABOVE_ORIGINAL,
    /** pcapng: a packet block names an interface that its section has not described (no IDB). */
    UNDEFINED_INTERFACE,
    /** pcapng: more than {@link PcapReader#MAX_INTERFACES} interfaces in one section. */
    TOO_MANY_INTERFACES,
    /**
     * pcapng: an Interface Description Block option runs past its block, or has the wrong length, or
     * sets a timestamp resolution finer than 10^-19 or 2^-63 s (libpcap refuses those too).
     */
    BAD_OPTION,
    /**
     * At open: no known magic number (neither pcap nor pcapng in either byte order). Later: a pcapng
     * Section Header Block whose byte-order magic is neither {@code 1a2b3c4d} nor its swap.
     */
    UNKNOWN_FORMAT,
    /** At open: a classic pcap version other than 2.0 to 2.4; at open or later: pcapng major version not 1. */
    UNSUPPORTED_VERSION,
    /** At open: the file is shorter than its own file header (24 bytes, or the first Section Header Block). */
    TRUNCATED_HEADER,
    /** {@link PcapReader#close()} was called before the end. */
    CLOSED
}
