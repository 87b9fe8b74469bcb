package io.jvs.tools.demo;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The daemon's counters as its control socket's {@code status} request answers them: {@code name value} lines
 * ended by an empty line. A Unix socket is reachable from any network namespace, so the demo reads it from its
 * own.
 */
final class DaemonStatus
{
    private static final int MAX_ANSWER = 1 << 20;

    private DaemonStatus()
    {
    }

    /**
     * Asks the daemon for its status.
     *
     * @param control the control socket.
     * @return the counters by name, in the order the daemon gave them.
     * @throws IllegalStateException when the socket cannot be reached or the answer is malformed.
     */
    static Map<String, Long> read(final Path control)
    {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX))
        {
            channel.connect(UnixDomainSocketAddress.of(control));
            channel.write(ByteBuffer.wrap("status\n".getBytes(StandardCharsets.US_ASCII)));
            final ByteBuffer in = ByteBuffer.allocate(MAX_ANSWER);
            while (!ended(in) && in.hasRemaining() && channel.read(in) >= 0)
            {
                // Until the empty line, the end of the stream or a full buffer.
            }
            return parse(new String(in.array(), 0, in.position(), StandardCharsets.UTF_8));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("the daemon's control socket " + control + ": " + ex.getMessage(), ex);
        }
    }

    private static boolean ended(final ByteBuffer in)
    {
        final int end = in.position();
        return end >= 2 && in.get(end - 1) == '\n' && in.get(end - 2) == '\n';
    }

    /**
     * @param answer {@code name value} lines; an empty line ends them.
     * @return the counters by name.
     * @throws IllegalStateException naming the line that is not {@code name value} with a whole number.
     */
    static Map<String, Long> parse(final String answer)
    {
        final Map<String, Long> values = new LinkedHashMap<>();
        for (final String line : answer.split("\n", -1))
        {
            if (line.isEmpty())
            {
                break;
            }
            final int space = line.lastIndexOf(' ');
            try
            {
                if (space <= 0)
                {
                    throw new NumberFormatException();
                }
                values.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalStateException("the daemon's status has a line that is not 'name value': " + line);
            }
        }
        return values;
    }

    /** @return the counter, or 0 when the daemon does not report it. */
    static long get(final Map<String, Long> status, final String name)
    {
        return status.getOrDefault(name, 0L);
    }
}
