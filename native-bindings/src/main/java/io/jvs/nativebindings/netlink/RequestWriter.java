package io.jvs.nativebindings.netlink;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * Lays out one request in a reused buffer: the {@code nlmsghdr}, the zeroed fixed structure of its type, then
 * attributes, each padded to 4 bytes; {@link #finish} writes the total length into the header.
 */
final class RequestWriter
{
    private final MemorySegment buffer;
    private int length;

    RequestWriter(final MemorySegment buffer)
    {
        this.buffer = buffer;
    }

    MemorySegment buffer()
    {
        return buffer;
    }

    /**
     * Starts a request.
     *
     * @param type       the message type, e.g. RTM_GETROUTE.
     * @param flags      NLM_F_REQUEST and the rest.
     * @param sequence   the sequence number the kernel echoes in its answers.
     * @param structSize the size of the type's fixed structure (rtmsg, ndmsg...), zeroed.
     * @return the offset of the fixed structure, for the caller to fill in.
     */
    long begin(final int type, final int flags, final int sequence, final int structSize)
    {
        length = NlMsgHdr.SIZE + Rtnetlink.align(structSize);
        ensure(0);
        buffer.asSlice(0, length).fill((byte)0);
        buffer.set(JAVA_SHORT_UNALIGNED, NlMsgHdr.TYPE_OFFSET, (short)type);
        buffer.set(JAVA_SHORT_UNALIGNED, NlMsgHdr.FLAGS_OFFSET, (short)flags);
        buffer.set(JAVA_INT_UNALIGNED, NlMsgHdr.SEQ_OFFSET, sequence);
        return NlMsgHdr.SIZE;
    }

    /**
     * Appends an attribute with the given bytes (an address, in network byte order).
     */
    void attribute(final int type, final byte[] value)
    {
        final long payload = header(type, value.length);
        MemorySegment.copy(value, 0, buffer, JAVA_BYTE, payload, value.length);
    }

    /**
     * Appends a 4-byte attribute in host byte order.
     */
    void attributeU32(final int type, final int value)
    {
        final long payload = header(type, 4);
        buffer.set(JAVA_INT_UNALIGNED, payload, value);
    }

    /**
     * @return the request's length, now written into its header.
     */
    int finish()
    {
        buffer.set(JAVA_INT_UNALIGNED, NlMsgHdr.LEN_OFFSET, length);
        return length;
    }

    private long header(final int type, final int payloadLength)
    {
        final int attributeLength = Rtnetlink.NLA_HDRLEN + payloadLength;
        ensure(Rtnetlink.align(attributeLength));
        final long start = length;
        buffer.asSlice(start, Rtnetlink.align(attributeLength)).fill((byte)0);
        buffer.set(JAVA_SHORT_UNALIGNED, start, (short)attributeLength);
        buffer.set(JAVA_SHORT_UNALIGNED, start + 2, (short)type);
        length += Rtnetlink.align(attributeLength);
        return start + Rtnetlink.NLA_HDRLEN;
    }

    private void ensure(final int more)
    {
        if (length + more > buffer.byteSize())
        {
            throw new IllegalStateException("a request of " + (length + more) + " bytes does not fit the " +
                buffer.byteSize() + "-byte request buffer");
        }
    }
}
