package io.jvs.forwarder.daemon.it;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SplittableRandom;

/**
 * What the traffic tools say to each other, so each end can check the bytes the other saw.
 * <p>
 * TCP, client to server: a request header (magic {@code JVS1}, the byte count as a u64, the SHA-256 of
 * the bytes), the bytes, then the client's FIN. Server to client: the bytes again as they arrive when
 * the server echoes, then, after the client's FIN, a response (magic {@code JVSR}, the count it read as
 * a u64, the SHA-256 of what it read, its identity as a u16 length and UTF-8), then its FIN.
 * <p>
 * UDP: the request is any datagram; the answer is magic {@code JVSU}, the SHA-256 of the datagram, the
 * datagram's length as a u16, then the server's identity in UTF-8 to the end.
 * <p>
 * Payloads are seeded: connection {@code i} of a load with seed {@code s} always carries the same bytes.
 */
public final class TrafficProtocol
{
    public static final int REQUEST_MAGIC = 0x4a565331;
    public static final int RESPONSE_MAGIC = 0x4a565352;
    public static final int UDP_MAGIC = 0x4a565355;
    public static final int DIGEST_BYTES = 32;
    public static final int REQUEST_HEADER_BYTES = 4 + 8 + DIGEST_BYTES;
    public static final int UDP_ANSWER_HEADER_BYTES = 4 + DIGEST_BYTES + 2;
    public static final int CHUNK = 64 * 1024;

    private TrafficProtocol()
    {
    }

    /** @return a new SHA-256 digest. */
    public static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JDK has SHA-256", ex);
        }
    }

    /**
     * The seeded bytes of one connection or datagram, produced chunk by chunk so that a large transfer needs
     * no array of its size.
     */
    public static final class Payload
    {
        private final SplittableRandom random;
        private long remaining;

        /**
         * @param seed  the load's seed.
         * @param index the connection's (or datagram's) number in the load.
         * @param bytes how many bytes it carries.
         */
        public Payload(final long seed, final int index, final long bytes)
        {
            // A well-mixed seed per index: streams seeded seed, seed + 1... would be one stream shifted.
            this.random = new SplittableRandom(new SplittableRandom(seed + index).nextLong());
            this.remaining = bytes;
        }

        /**
         * Fills the start of {@code chunk} with the next bytes.
         *
         * @return how many (0 at the end).
         */
        public int next(final byte[] chunk)
        {
            final int length = (int)Math.min(chunk.length, remaining);
            if (length == chunk.length)
            {
                random.nextBytes(chunk);
            }
            else
            {
                final byte[] last = new byte[length];
                random.nextBytes(last);
                System.arraycopy(last, 0, chunk, 0, length);
            }
            remaining -= length;
            return length;
        }

        /** @return all of it (for datagrams and small transfers). */
        public byte[] all()
        {
            final byte[] bytes = new byte[(int)remaining];
            next(bytes);
            return bytes;
        }

        /** @return the SHA-256 of a payload, computed by producing it. */
        public static byte[] digest(final long seed, final int index, final long bytes)
        {
            final Payload payload = new Payload(seed, index, bytes);
            final MessageDigest digest = sha256();
            final byte[] chunk = new byte[CHUNK];
            int length;
            while ((length = payload.next(chunk)) > 0)
            {
                digest.update(chunk, 0, length);
            }
            return digest.digest();
        }
    }

    /** @return the request header for {@code bytes} bytes with this digest. */
    public static byte[] requestHeader(final long bytes, final byte[] digest)
    {
        return ByteBuffer.allocate(REQUEST_HEADER_BYTES).putInt(REQUEST_MAGIC).putLong(bytes).put(digest).array();
    }

    /** @return the response of a server that read {@code bytes} bytes with this digest. */
    public static byte[] response(final long bytes, final byte[] digest, final String identity)
    {
        final byte[] name = identity.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + 8 + DIGEST_BYTES + 2 + name.length).putInt(RESPONSE_MAGIC).putLong(bytes)
            .put(digest).putShort((short)name.length).put(name).array();
    }

    /** A server's response as read by the client. */
    public record Response(long bytes, byte[] digest, String identity)
    {
    }

    /**
     * @throws IOException when the stream ends early or does not start with the response magic.
     */
    public static Response readResponse(final DataInputStream input) throws IOException
    {
        final int magic = input.readInt();
        if (magic != RESPONSE_MAGIC)
        {
            throw new IOException(String.format("the response starts with 0x%08x, not the magic 0x%08x", magic,
                RESPONSE_MAGIC));
        }
        final long bytes = input.readLong();
        final byte[] digest = new byte[DIGEST_BYTES];
        input.readFully(digest);
        final byte[] name = new byte[input.readUnsignedShort()];
        input.readFully(name);
        return new Response(bytes, digest, new String(name, StandardCharsets.UTF_8));
    }

    /** @return the UDP answer to a datagram. */
    public static byte[] udpAnswer(final byte[] datagram, final int length, final String identity)
    {
        final MessageDigest digest = sha256();
        digest.update(datagram, 0, length);
        final byte[] name = identity.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(UDP_ANSWER_HEADER_BYTES + name.length).putInt(UDP_MAGIC).put(digest.digest())
            .putShort((short)length).put(name).array();
    }

    /** A UDP answer as read by the client. */
    public record UdpAnswer(byte[] digest, int length, String identity)
    {
    }

    /**
     * @throws EOFException when the datagram is too short or lacks the magic.
     */
    public static UdpAnswer readUdpAnswer(final ByteBuffer datagram) throws EOFException
    {
        if (datagram.remaining() < UDP_ANSWER_HEADER_BYTES || datagram.getInt() != UDP_MAGIC)
        {
            throw new EOFException("not an answer of the UDP digest server (" + datagram.limit() + " bytes)");
        }
        final byte[] digest = new byte[DIGEST_BYTES];
        datagram.get(digest);
        final int length = datagram.getShort() & 0xffff;
        final byte[] name = new byte[datagram.remaining()];
        datagram.get(name);
        return new UdpAnswer(digest, length, new String(name, StandardCharsets.UTF_8));
    }
}
