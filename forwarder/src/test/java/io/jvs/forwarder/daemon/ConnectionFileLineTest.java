package io.jvs.forwarder.daemon;

import io.jvs.core.control.ConnectionView;
import io.jvs.core.net.IpAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Locale;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A line of {@code /proc/net/ip_vs_conn}, appended piece by piece, against the same line as printf's format string
 * ({@code ip_vs_conn_seq_show}'s) prints it, over random entries: both families, every port, states and protocol names
 * of every length up to their fields' widths, and times that overflow the seconds' field.
 */
class ConnectionFileLineTest
{
    private static final String[] PROTOCOLS = {"TCP", "UDP", "SCTP", "IP", "ICMP"};
    private static final String[] STATES = {"ESTABLISHED", "SYN_RECV", "UDP", "NONE", "TIME_WAIT", "CLOSE_WAIT", "C"};

    static LongStream seeds()
    {
        return LongStream.range(1, 201);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldPrintEachFieldAsTheFormatStringDoes(final long seed)
    {
        final Random random = new Random(seed);
        final boolean v6 = random.nextBoolean();
        final ConnectionView entry = new ConnectionView(PROTOCOLS[random.nextInt(PROTOCOLS.length)],
            address(random, v6), random.nextInt(65536), address(random, v6), random.nextInt(65536),
            address(random, random.nextInt(4) == 0 != v6), random.nextInt(65536), STATES[random.nextInt(STATES.length)],
            random.nextInt(3) == 0 ? random.nextLong(100_000_000_000L) : random.nextInt(1_000_000));

        final StringBuilder line = new StringBuilder();
        NetlinkBackend.appendConnection(line, entry);

        assertThat(line.toString()).isEqualTo(String.format(Locale.ROOT, "%-3s %s %04X %s %04X %s %04X %-11s %7d\n",
            entry.protocol(), reference(entry.client()), entry.clientPort(), reference(entry.virtualAddress()),
            entry.virtualPort(), reference(entry.destination()), entry.destinationPort(), entry.state(),
            entry.expiresMs() / 1000));
    }

    private static IpAddress address(final Random random, final boolean v6)
    {
        return v6 ? IpAddress.ofV6(random.nextLong(), random.nextLong()) : IpAddress.ofV4(random.nextInt());
    }

    /** %08X of the IPv4 address in host order, or %pI6: eight groups of %04x. */
    private static String reference(final IpAddress address)
    {
        if (!address.isV6())
        {
            return String.format(Locale.ROOT, "%08X", address.v4());
        }
        final StringBuilder groups = new StringBuilder();
        for (int group = 0; group < 8; group++)
        {
            final long half = group < 4 ? address.high() : address.low();
            groups.append(group == 0 ? "" : ":")
                .append(String.format(Locale.ROOT, "%04x", (half >>> (48 - 16 * (group % 4))) & 0xFFFF));
        }
        return groups.toString();
    }
}
