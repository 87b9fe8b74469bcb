package io.jvs.core.conn;

import org.junit.jupiter.api.Test;

import static io.jvs.core.conn.TcpStates.INPUT;
import static io.jvs.core.conn.TcpStates.INPUT_ONLY;
import static io.jvs.core.conn.TcpStates.OUTPUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three whole TCP connections packet by packet: a NAT connection the client closes first, a direct-routing
 * connection that closes, and one that is reset. For each packet: the table used, the state change, the
 * timeout armed, and whether the entry counts as active under current kernels' rule ("new": the handshake
 * states and ESTABLISHED) and under older kernels' ("old": ESTABLISHED only).
 * <p>
 * Each example runs through a minimal connection that follows the kernel's {@code set_tcp_state}: pick the table
 * from NOOUTPUT, move the state, and on a change move the entry between the server's active and inactive
 * counters. The two counters are checked too, so that the kernel's accounting (an entry is counted once, as
 * active or inactive, from {@code ip_vs_bind_dest} to {@code ip_vs_unbind_dest}) holds at every step.
 */
class ConnectionTrackingExamplesTest
{
    @Test
    void ct1ShouldFollowTheSpecStepsWhenANatConnectionOpensAndClientClosesFirst()
    {
        final Conn conn = Conn.nat();

        conn.packet("IN", "S").expect(INPUT, "NO", "SR", 60, true, false);
        conn.packet("OUT", "SA").expect(OUTPUT, "SR", "SR", 60, true, false);
        conn.packet("IN", "A").expect(INPUT, "SR", "ES", 900, true, true);
        conn.packet("IN", "FA").expect(INPUT, "ES", "CW", 60, false, false);
        conn.packet("OUT", "A").expect(OUTPUT, "CW", "CW", 60, false, false);
        conn.packet("OUT", "FA").expect(OUTPUT, "CW", "TW", 120, false, false);
        conn.packet("IN", "A").expect(INPUT, "TW", "TW", 120, false, false);
    }

    @Test
    void ct2ShouldFollowTheSpecStepsWhenADrConnectionOpensAndCloses()
    {
        final Conn conn = Conn.directRouting();

        conn.packet("IN", "S").expect(INPUT_ONLY, "NO", "SR", 60, true, false);
        conn.packet("IN", "A").expect(INPUT_ONLY, "SR", "ES", 900, true, true);
        conn.packet("IN", "FA").expect(INPUT_ONLY, "ES", "FW", 120, false, false);
        conn.packet("IN", "A").expect(INPUT_ONLY, "FW", "FW", 120, false, false);
    }

    @Test
    void ct3ShouldCloseWithTheCloseTimeoutWhenADrConnectionIsReset()
    {
        final Conn conn = Conn.directRouting();

        // NO→SR→ES→CL with timeouts 60/900/10; active Y,Y,N under the new rule, and N,Y,N under the old one,
        // where only ESTABLISHED is active.
        conn.packet("IN", "S").expect(INPUT_ONLY, "NO", "SR", 60, true, false);
        conn.packet("IN", "A").expect(INPUT_ONLY, "SR", "ES", 900, true, true);
        conn.packet("IN", "R").expect(INPUT_ONLY, "ES", "CL", 10, false, false);
    }

    @Test
    void shouldLeaveTheInputOnlyTableForGoodWhenANoOutputConnectionSeesAReply()
    {
        // A DR/TUN-style entry (NOOUTPUT set) that sees a reply leaves INPUT_ONLY for good, as in the kernel.
        final Conn conn = Conn.directRouting();

        conn.packet("IN", "S").expect(INPUT_ONLY, "NO", "SR", 60, true, false);
        conn.packet("OUT", "SA").expect(OUTPUT, "SR", "SR", 60, true, false);
        conn.packet("IN", "A").expect(INPUT, "SR", "ES", 900, true, true);
        conn.packet("IN", "FA").expect(INPUT, "ES", "CW", 60, false, false);
    }

    /** A connection entry bound to one server, tracked under both active rules side by side. */
    private static final class Conn
    {
        private static final String[] SHORT = {"NO", "ES", "SS", "SR", "FW", "TW", "CL", "CW", "LA", "LI", "SA"};

        private final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        private final Accounting current = new Accounting(false);
        private final Accounting older = new Accounting(true);
        private boolean noOutput;
        private int state = TcpStates.NONE;
        private int timeoutMs = ConnectionTimeouts.NEW_ENTRY_MS;
        private int lastDirection;
        private int lastFrom;

        private Conn(final boolean noOutput)
        {
            this.noOutput = noOutput;
        }

        static Conn nat()
        {
            return new Conn(false);
        }

        static Conn directRouting()
        {
            return new Conn(true);
        }

        Conn packet(final String direction, final String flags)
        {
            final int packetDirection = "OUT".equals(direction) ? OUTPUT : INPUT;
            lastDirection = TcpStates.tableDirection(packetDirection, noOutput);
            if (packetDirection == OUTPUT)
            {
                noOutput = false;
            }
            lastFrom = state;
            final int next = TcpStates.next(lastDirection, TcpStates.flagIndex(flagsByte(flags)), state);
            if (next != state)
            {
                current.onStateChange(next);
                older.onStateChange(next);
            }
            state = next;
            timeoutMs = timeouts.tcpMs(state);
            return this;
        }

        void expect(
            final int table, final String from, final String to, final int timeoutSeconds,
            final boolean activeNew, final boolean activeOld)
        {
            assertThat(lastDirection).as("table").isEqualTo(table);
            assertThat(SHORT[lastFrom] + "→" + SHORT[state]).isEqualTo(from + "→" + to);
            assertThat(timeoutMs).as("timeout").isEqualTo(timeoutSeconds * 1000);
            current.expect(activeNew, "new");
            older.expect(activeOld, "old");
        }

        private static int flagsByte(final String flags)
        {
            int bits = 0;
            for (final char flag : flags.toCharArray())
            {
                bits |= switch (flag)
                {
                    case 'F' -> 0x01;
                    case 'S' -> 0x02;
                    case 'R' -> 0x04;
                    case 'A' -> 0x10;
                    default -> throw new IllegalArgumentException(flags);
                };
            }
            return bits;
        }
    }

    /**
     * The server's two counters and the entry's INACTIVE flag, as the kernel keeps them ({@code ip_vs_bind_dest},
     * {@code set_tcp_state}, {@code ip_vs_unbind_dest}).
     */
    private static final class Accounting
    {
        private final boolean establishedOnly;
        /** New entries start INACTIVE (the server's connFlags always carry it), so bindDest counts one inactive. */
        private boolean inactive = true;
        private int activeConns;
        private int inactConns = 1;

        Accounting(final boolean establishedOnly)
        {
            this.establishedOnly = establishedOnly;
        }

        void onStateChange(final int next)
        {
            final boolean active = TcpStates.isActive(next, establishedOnly);
            if (!inactive && !active)
            {
                activeConns--;
                inactConns++;
                inactive = true;
            }
            else if (inactive && active)
            {
                inactConns--;
                activeConns++;
                inactive = false;
            }
        }

        void expect(final boolean active, final String rule)
        {
            assertThat(!inactive).as("active (%s)", rule).isEqualTo(active);
            assertThat(activeConns).as("activeConns (%s)", rule).isEqualTo(active ? 1 : 0);
            assertThat(inactConns).as("inactConns (%s)", rule).isEqualTo(active ? 0 : 1);
        }
    }
}
