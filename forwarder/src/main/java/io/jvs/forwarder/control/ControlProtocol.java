package io.jvs.forwarder.control;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The control socket's messages: each request and each answer is one frame, a 12-byte header and a payload.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      magic "JVSC"                             |
 *  +---------------+---------------+-------------------------------+
 *  |   version 1   |     type      |        flags (zero)           |
 *  +---------------+---------------+-------------------------------+
 *  |                 payload length (bytes)                        |
 *  +---------------------------------------------------------------+
 * </pre>
 * Big-endian throughout. Requests: {@link #IPVSADM} (a 16-bit argument count, each argument as a 32-bit length
 * and its UTF-8 bytes, then standard input as a 32-bit length and its bytes), {@link #STATUS} and {@link #RELOAD}
 * (no payload), {@link #NETLINK} (no payload: from then on the connection carries netlink datagrams both ways, each
 * after its 32-bit length, as {@code io.jvs.forwarder.control.netlink.IpvsNetlinkSession} serves them) and
 * {@link #PROC_FILE} (a {@code /proc/net/ip_vs*} path in UTF-8, answered by a {@link #RESULT} whose status is 0 and
 * whose output is the file, or the errno the file's open fails with). Answers: {@link #RESULT} (a 32-bit exit
 * status, then standard output and standard error, each a 32-bit length and its bytes) and {@link #REFUSED} (the
 * reason in UTF-8). One request per connection (a netlink session is one long request); every field is checked
 * before anything is done, so a malformed, truncated or oversized request is refused whole.
 */
public final class ControlProtocol
{
    /** "JVSC". */
    public static final int MAGIC = 0x4A565343;
    public static final int VERSION = 1;
    public static final int HEADER_LENGTH = 12;
    /** The largest request payload the daemon accepts: an {@code -R} of many thousand rules fits. */
    public static final int MAX_PAYLOAD = 4 << 20;
    /**
     * The largest answer payload: an {@code -L -n -c} of millions of connection entries (about 80 bytes each) fits,
     * as the kernel's listing of its table has no bound but the table's.
     */
    public static final int MAX_ANSWER = 1 << 30;
    /**
     * The most a payload is given before its bytes come: a larger one grows as they arrive, so that a client
     * claiming {@link #MAX_PAYLOAD} and sending nothing more costs this much, not what it claims.
     */
    static final int FIRST_ALLOCATION = 64 << 10;
    /** The longest sleep between two reads or writes that moved nothing (see {@link #pause}). */
    static final long LONGEST_PAUSE_MS = 50;
    /** The most arguments an ipvsadm request may have. */
    public static final int MAX_ARGUMENTS = 256;

    public static final int IPVSADM = 1;
    public static final int STATUS = 2;
    public static final int RELOAD = 3;
    /** Switches the connection to netlink datagrams (the preload library's generic netlink socket). */
    public static final int NETLINK = 4;
    /** Asks for a {@code /proc/net/ip_vs*} file's content (the preload library's fopen). */
    public static final int PROC_FILE = 5;
    /** The longest path a {@link #PROC_FILE} request may name ({@code PATH_MAX}). */
    public static final int MAX_PATH = 4096;
    public static final int RESULT = 0x81;
    public static final int REFUSED = 0xFF;

    private ControlProtocol()
    {
    }

    /** @return the request as one frame, ready to write. */
    public static ByteBuffer encode(final ControlRequest request)
    {
        return switch (request)
        {
            case ControlRequest.Ipvsadm ipvsadm ->
            {
                final List<byte[]> arguments = ipvsadm.arguments().stream()
                    .map(argument -> argument.getBytes(StandardCharsets.UTF_8)).toList();
                int length = 2 + 4 + ipvsadm.input().length;
                for (final byte[] argument : arguments)
                {
                    length += 4 + argument.length;
                }
                final ByteBuffer frame = header(IPVSADM, length, MAX_PAYLOAD);
                frame.putShort((short)arguments.size());
                arguments.forEach(argument -> frame.putInt(argument.length).put(argument));
                final byte[] input = ipvsadm.input();
                yield frame.putInt(input.length).put(input).flip();
            }
            case ControlRequest.Status status -> header(STATUS, 0, MAX_PAYLOAD).flip();
            case ControlRequest.Reload reload -> header(RELOAD, 0, MAX_PAYLOAD).flip();
        };
    }

    /** @return the answer as one frame, ready to write. */
    public static ByteBuffer encode(final ControlResponse response)
    {
        return switch (response)
        {
            case ControlResponse.Result result ->
            {
                final byte[] output = result.output();
                final byte[] error = result.error();
                yield header(RESULT, 4 + 4 + output.length + 4 + error.length, MAX_ANSWER).putInt(result.status())
                    .putInt(output.length).put(output).putInt(error.length).put(error).flip();
            }
            case ControlResponse.Refused refused ->
            {
                final byte[] reason = refused.reason().getBytes(StandardCharsets.UTF_8);
                yield header(REFUSED, reason.length, MAX_ANSWER).put(reason).flip();
            }
        };
    }

    /** @return the header that turns a connection into a netlink datagram stream. */
    public static ByteBuffer encodeNetlinkStart()
    {
        return header(NETLINK, 0, MAX_PAYLOAD).flip();
    }

    /** @return a {@link #PROC_FILE} request for the path. */
    public static ByteBuffer encodeProcFile(final String path)
    {
        final byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        return header(PROC_FILE, bytes.length, MAX_PAYLOAD).put(bytes).flip();
    }

    /**
     * @param payload a {@link #PROC_FILE} request's whole payload.
     * @return the path it names.
     * @throws ControlProtocolException when it is empty, too long or not UTF-8.
     */
    public static String decodeProcFile(final ByteBuffer payload) throws ControlProtocolException
    {
        if (!payload.hasRemaining() || payload.remaining() > MAX_PATH)
        {
            throw new ControlProtocolException("a file request needs a path of 1 to " + MAX_PATH + " bytes, not " +
                payload.remaining());
        }
        final byte[] bytes = new byte[payload.remaining()];
        payload.get(bytes);
        return text(bytes, "the path");
    }

    private static ByteBuffer header(final int type, final int payload, final int max)
    {
        if (payload > max)
        {
            throw new IllegalArgumentException("a control message of " + payload + " bytes is larger than " + max);
        }
        return ByteBuffer.allocate(HEADER_LENGTH + payload).putInt(MAGIC).put((byte)VERSION).put((byte)type)
            .putShort((short)0).putInt(payload);
    }

    /**
     * Checks a request's header.
     *
     * @param header the first {@link #HEADER_LENGTH} bytes, positioned at the start.
     * @return the message type; the payload length is {@code header.getInt(8)}.
     * @throws ControlProtocolException naming the field that is wrong.
     */
    public static int checkHeader(final ByteBuffer header) throws ControlProtocolException
    {
        return checkHeader(header, MAX_PAYLOAD);
    }

    /**
     * Checks an answer's header: as {@link #checkHeader(ByteBuffer)}, with an answer's larger bound.
     */
    public static int checkAnswerHeader(final ByteBuffer header) throws ControlProtocolException
    {
        return checkHeader(header, MAX_ANSWER);
    }

    private static int checkHeader(final ByteBuffer header, final int max) throws ControlProtocolException
    {
        final int magic = header.getInt(0);
        if (magic != MAGIC)
        {
            throw new ControlProtocolException(String.format("not a jvs control message (magic 0x%08x, want 0x%08x)",
                magic, MAGIC));
        }
        final int version = Byte.toUnsignedInt(header.get(4));
        if (version != VERSION)
        {
            throw new ControlProtocolException("control protocol version " + version + " is not supported (" +
                VERSION + " is)");
        }
        final int flags = Short.toUnsignedInt(header.getShort(6));
        if (flags != 0)
        {
            throw new ControlProtocolException(String.format("unknown flags 0x%04x", flags));
        }
        final long length = Integer.toUnsignedLong(header.getInt(8));
        if (length > max)
        {
            throw new ControlProtocolException("a payload of " + length + " bytes is larger than " + max);
        }
        return Byte.toUnsignedInt(header.get(5));
    }

    /**
     * @param type    a request type from its header.
     * @param payload the whole payload.
     * @return the request.
     * @throws ControlProtocolException when the type is unknown or the payload does not add up.
     */
    public static ControlRequest decodeRequest(final int type, final ByteBuffer payload)
        throws ControlProtocolException
    {
        final ControlRequest request = switch (type)
        {
            case IPVSADM ->
            {
                final int count = Short.toUnsignedInt(field(payload, 2, "argument count").getShort());
                if (count > MAX_ARGUMENTS)
                {
                    throw new ControlProtocolException(count + " arguments are more than " + MAX_ARGUMENTS);
                }
                final List<String> arguments = new ArrayList<>(count);
                for (int i = 0; i < count; i++)
                {
                    arguments.add(text(bytes(payload, "argument " + (i + 1)), "argument " + (i + 1)));
                }
                yield new ControlRequest.Ipvsadm(arguments, bytes(payload, "standard input"));
            }
            case STATUS -> new ControlRequest.Status();
            case RELOAD -> new ControlRequest.Reload();
            default -> throw new ControlProtocolException("unknown request type " + type);
        };
        if (payload.hasRemaining())
        {
            throw new ControlProtocolException(payload.remaining() + " bytes after the request's last field");
        }
        return request;
    }

    /**
     * @param type    an answer type from its header.
     * @param payload the whole payload.
     * @return the answer.
     * @throws ControlProtocolException when the type is unknown or the payload does not add up.
     */
    public static ControlResponse decodeResponse(final int type, final ByteBuffer payload)
        throws ControlProtocolException
    {
        final ControlResponse response = switch (type)
        {
            case RESULT -> new ControlResponse.Result(field(payload, 4, "exit status").getInt(),
                bytes(payload, "standard output"), bytes(payload, "standard error"));
            case REFUSED ->
            {
                final byte[] reason = new byte[payload.remaining()];
                payload.get(reason);
                yield new ControlResponse.Refused(text(reason, "the reason"));
            }
            default -> throw new ControlProtocolException("unknown answer type " + type);
        };
        if (payload.hasRemaining())
        {
            throw new ControlProtocolException(payload.remaining() + " bytes after the answer's last field");
        }
        return response;
    }

    private static ByteBuffer field(final ByteBuffer payload, final int length, final String what)
        throws ControlProtocolException
    {
        if (payload.remaining() < length)
        {
            throw new ControlProtocolException("the payload ends inside " + what);
        }
        return payload;
    }

    private static byte[] bytes(final ByteBuffer payload, final String what) throws ControlProtocolException
    {
        final long length = Integer.toUnsignedLong(field(payload, 4, "the length of " + what).getInt());
        if (length > payload.remaining())
        {
            throw new ControlProtocolException(what + " claims " + length + " bytes; " + payload.remaining() +
                " are left");
        }
        final byte[] bytes = new byte[(int)length];
        payload.get(bytes);
        return bytes;
    }

    private static String text(final byte[] bytes, final String what) throws ControlProtocolException
    {
        try
        {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw new ControlProtocolException(what + " is not UTF-8");
        }
    }

    /**
     * Reads one answer from a non-blocking channel, giving up at the deadline.
     *
     * @return the type (from the checked header) and the payload, or null when the peer closed before a byte.
     * @throws ControlProtocolException when the header is wrong (nothing more is read) or the frame is cut short.
     * @throws SocketTimeoutException   when the whole frame did not come by the deadline.
     */
    public static Frame read(final SocketChannel channel, final long deadlineNs)
        throws IOException, ControlProtocolException
    {
        final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH);
        if (!fill(channel, header, deadlineNs))
        {
            if (header.position() == 0)
            {
                return null;
            }
            throw new ControlProtocolException("the message ends inside its " + HEADER_LENGTH + "-byte header");
        }
        final int type = checkAnswerHeader(header);
        return new Frame(type, readPayload(channel, header.getInt(8), deadlineNs));
    }

    /**
     * Reads a payload of a checked length from a non-blocking channel, giving up at the deadline. Its buffer grows
     * as the bytes come (from {@link #FIRST_ALLOCATION}), so a peer pays in bytes sent for the memory it takes.
     *
     * @return the payload, positioned at its start.
     * @throws ControlProtocolException when the peer closed before the whole payload came.
     * @throws SocketTimeoutException   when it did not come by the deadline.
     */
    public static ByteBuffer readPayload(final SocketChannel channel, final int length, final long deadlineNs)
        throws IOException, ControlProtocolException
    {
        ByteBuffer payload = ByteBuffer.allocate(Math.min(length, FIRST_ALLOCATION));
        while (true)
        {
            if (!fill(channel, payload, deadlineNs))
            {
                throw new ControlProtocolException("the message ends after " + payload.position() + " of its " +
                    length + " payload bytes");
            }
            if (payload.capacity() == length)
            {
                return payload.flip();
            }
            payload = ByteBuffer.allocate((int)Math.min(length, 2L * payload.capacity())).put(payload.flip());
        }
    }

    /**
     * Writes a whole buffer to a non-blocking channel, giving up at the deadline.
     *
     * @throws SocketTimeoutException when the peer did not take it all by the deadline.
     */
    public static void write(final SocketChannel channel, final ByteBuffer frame, final long deadlineNs)
        throws IOException
    {
        int pauses = 0;
        while (frame.hasRemaining())
        {
            pauses = channel.write(frame) == 0 ? pause(deadlineNs, pauses) : 0;
        }
    }

    /**
     * Reads from a non-blocking channel until the buffer is full, giving up at the deadline.
     *
     * @return true when full, false when the peer closed first.
     * @throws SocketTimeoutException when the bytes did not come by the deadline.
     */
    public static boolean fill(final SocketChannel channel, final ByteBuffer into, final long deadlineNs)
        throws IOException
    {
        int pauses = 0;
        while (into.hasRemaining())
        {
            final int read = channel.read(into);
            if (read < 0)
            {
                return false;
            }
            pauses = read == 0 ? pause(deadlineNs, pauses) : 0;
        }
        return true;
    }

    /**
     * Sleeps after the peer's {@code pauses}-th idle turn in a row: 1 ms, then twice as long each turn up to
     * {@link #LONGEST_PAUSE_MS}. A peer that sends or reads at once waits a millisecond or two; one that stalls
     * until the deadline wakes its thread some twenty times a second, not a thousand (a thousand stalled clients
     * polled every millisecond took both cores of a two-core box from the workers).
     *
     * @return the count for the next idle turn.
     */
    private static int pause(final long deadlineNs, final int pauses) throws IOException
    {
        if (System.nanoTime() - deadlineNs >= 0)
        {
            throw new SocketTimeoutException("no whole message within the time limit");
        }
        try
        {
            Thread.sleep(Math.min(LONGEST_PAUSE_MS, 1L << Math.min(pauses, 16)));
            return pauses + 1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
    }

    /**
     * One frame as read.
     *
     * @param type    its checked type byte.
     * @param payload its payload, positioned at the start.
     */
    public record Frame(int type, ByteBuffer payload)
    {
    }
}
