package io.jvs.core.conn;

import java.util.Objects;

/**
 * The IPVS TCP connection state machine (the kernel's {@code tcp_states} table in
 * {@code ip_vs_proto_tcp.c}; the {@code secure_tcp} table is not covered).
 * <p>
 * States, directions and flag indices are plain {@code int}s, numbered as the kernel numbers them, so that a
 * connection entry can hold its state in a primitive field and the per-packet methods ({@link #flagIndex},
 * {@link #next}, {@link #isActive}, {@link #tableDirection}) neither allocate nor branch on objects.
 * <p>
 * One packet moves a connection with {@code next(tableDirection(dir, noOutput), flagIndex(tcpFlags), state)};
 * the connection then re-arms its idle timer with {@link ConnectionTimeouts#tcpMs} of the new state and, if the
 * state changed, moves between the server's active and inactive counters according to {@link #isActive}.
 */
public final class TcpStates
{
    /** No state yet: a new entry before its first packet has been through {@link #next}. */
    public static final int NONE = 0;
    /** Three-way handshake complete. */
    public static final int ESTABLISHED = 1;
    /** A SYN seen from the server (NAT only). */
    public static final int SYN_SENT = 2;
    /** A SYN seen from the client. */
    public static final int SYN_RECV = 3;
    /** One side has sent FIN. */
    public static final int FIN_WAIT = 4;
    /** Both sides have sent FIN. */
    public static final int TIME_WAIT = 5;
    /** Reset, or a packet that carries none of RST, SYN, FIN and ACK. */
    public static final int CLOSE = 6;
    /** The client has sent FIN while established (NAT). */
    public static final int CLOSE_WAIT = 7;
    /** FIN from the server after the client's FIN (NAT). */
    public static final int LAST_ACK = 8;
    /** Set by the FTP helper for an expected data connection; no packet leads here from another state. */
    public static final int LISTEN = 9;
    /** A SYN+ACK seen; reachable only through the secure_tcp table, kept for numbering and listing. */
    public static final int SYNACK = 10;
    /** Number of states ({@code IP_VS_TCP_S_LAST}). */
    public static final int COUNT = 11;

    /** Client to server with the NOOUTPUT flag clear (NAT). */
    public static final int INPUT = 0;
    /** Server to client; seen only for NAT, and the first one clears NOOUTPUT. */
    public static final int OUTPUT = 1;
    /** Client to server while NOOUTPUT is set (DR, TUN): replies bypass us, so the table assumes none. */
    public static final int INPUT_ONLY = 2;
    /** Number of directions. */
    public static final int DIRECTIONS = 3;

    /** The packet's highest-priority flag is SYN (table row 0, as in the kernel). */
    public static final int FLAG_SYN = 0;
    /** The packet's highest-priority flag is FIN. */
    public static final int FLAG_FIN = 1;
    /** The packet's highest-priority flag is ACK. */
    public static final int FLAG_ACK = 2;
    /** The packet carries RST. */
    public static final int FLAG_RST = 3;
    /** None of RST, SYN, FIN, ACK: {@link #next} gives {@link #CLOSE}, as the kernel's {@code -1} index does. */
    public static final int FLAG_NONE = -1;
    /** Number of table rows per direction. */
    public static final int FLAGS = 4;

    /** TCP header flag bits, as they sit in byte 13 of the TCP header. */
    public static final int TCP_FIN = 0x01;
    /** SYN bit. */
    public static final int TCP_SYN = 0x02;
    /** RST bit. */
    public static final int TCP_RST = 0x04;
    /** ACK bit. */
    public static final int TCP_ACK = 0x10;

    /** Names as {@code ipvsadm -Lc} prints them, indexed by state. */
    private static final String[] NAMES = {
        "NONE", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT", "TIME_WAIT",
        "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "SYNACK",
    };

    // Two-letter aliases so that the table below reads exactly like the kernel's sNO, sES, ...
    // (no transition leads back to NONE, so it needs none).
    private static final byte ES = ESTABLISHED;
    private static final byte SS = SYN_SENT;
    private static final byte SR = SYN_RECV;
    private static final byte FW = FIN_WAIT;
    private static final byte TW = TIME_WAIT;
    private static final byte CL = CLOSE;
    private static final byte CW = CLOSE_WAIT;
    private static final byte LA = LAST_ACK;
    private static final byte LI = LISTEN;
    private static final byte SA = SYNACK;

    /**
     * Next state, flat: {@code [(direction * FLAGS + flagIndex) * COUNT + state]}. Transcribed from the current
     * kernel's {@code tcp_states}, row for row (the kernel's rows are syn, fin, ack,
     * rst, hence the flag numbering). One flat array keeps the lookup to a single bounds-checked load.
     */
    private static final byte[] NEXT = {
        //                   NO  ES  SS  SR  FW  TW  CL  CW  LA  LI  SA
        /* INPUT      syn */ SR, ES, ES, SR, SR, SR, SR, SR, SR, SR, SR,
        /* INPUT      fin */ CL, CW, SS, TW, TW, TW, CL, CW, LA, LI, TW,
        /* INPUT      ack */ ES, ES, SS, ES, FW, TW, CL, CW, CL, LI, ES,
        /* INPUT      rst */ CL, CL, CL, SR, CL, CL, CL, CL, LA, LI, SR,
        /* OUTPUT     syn */ SS, ES, SS, SR, SS, SS, SS, SS, SS, LI, SR,
        /* OUTPUT     fin */ TW, FW, SS, TW, FW, TW, CL, TW, LA, LI, TW,
        /* OUTPUT     ack */ ES, ES, SS, ES, FW, TW, CL, CW, LA, ES, ES,
        /* OUTPUT     rst */ CL, CL, SS, CL, CL, TW, CL, CL, CL, CL, CL,
        /* INPUT_ONLY syn */ SR, ES, ES, SR, SR, SR, SR, SR, SR, SR, SR,
        /* INPUT_ONLY fin */ CL, FW, SS, TW, FW, TW, CL, CW, LA, LI, TW,
        /* INPUT_ONLY ack */ ES, ES, SS, ES, FW, TW, CL, CW, CL, LI, ES,
        /* INPUT_ONLY rst */ CL, CL, CL, SR, CL, CL, CL, CL, LA, LI, CL,
    };

    /**
     * For each direction and each combination of the four flags the table reads, the states a packet leaves as they
     * are, one bit a state: {@link #stays}'s answer in one load, where {@link #next} tests the flags one by one.
     */
    private static final int[] STAYS = staysTable();
    /** {@link #next} by direction, flag bits ({@link #flagBits}) and state, sixteen states a row. */
    private static final byte[] NEXT_BY_FLAG_BITS = nextByFlagBitsTable();

    /**
     * Current kernels' {@code tcp_state_active_table}: the handshake counts, so lc/wlc see bursts early. Older
     * kernels counted only ESTABLISHED, which {@code DataPlaneSettings.activeEstablishedOnly} brings back.
     */
    private static final int ACTIVE_MASK =
        (1 << ESTABLISHED) | (1 << SYN_SENT) | (1 << SYN_RECV) | (1 << SYNACK);

    private TcpStates()
    {
    }

    /**
     * Maps a TCP flags byte to a table row, in the kernel's priority order RST &gt; SYN &gt; FIN &gt; ACK
     * ({@code tcp_state_idx}). Other bits (PSH, URG, ECE, CWR) are ignored.
     *
     * @param tcpFlags the flags byte of the TCP header (only the low 8 bits are read).
     * @return {@link #FLAG_RST}, {@link #FLAG_SYN}, {@link #FLAG_FIN}, {@link #FLAG_ACK} or {@link #FLAG_NONE}.
     */
    public static int flagIndex(final int tcpFlags)
    {
        if ((tcpFlags & TCP_RST) != 0)
        {
            return FLAG_RST;
        }
        if ((tcpFlags & TCP_SYN) != 0)
        {
            return FLAG_SYN;
        }
        if ((tcpFlags & TCP_FIN) != 0)
        {
            return FLAG_FIN;
        }
        if ((tcpFlags & TCP_ACK) != 0)
        {
            return FLAG_ACK;
        }
        return FLAG_NONE;
    }

    /**
     * The state after one packet.
     *
     * @param direction {@link #INPUT}, {@link #OUTPUT} or {@link #INPUT_ONLY}; see {@link #tableDirection}.
     * @param flagIndex from {@link #flagIndex}; {@link #FLAG_NONE} gives {@link #CLOSE} whatever the state,
     *                  because the kernel's {@code set_tcp_state} starts from CLOSE and skips the table then.
     * @param state     the current state, {@code 0 <= state < COUNT}.
     * @return the next state.
     * @throws IndexOutOfBoundsException if an argument is out of range (a caller bug, never a packet's fault).
     */
    public static int next(final int direction, final int flagIndex, final int state)
    {
        if (flagIndex == FLAG_NONE)
        {
            return CLOSE;
        }
        // Each index is checked on its own: an out-of-range state would otherwise land in another row.
        Objects.checkIndex(direction, DIRECTIONS);
        Objects.checkIndex(flagIndex, FLAGS);
        Objects.checkIndex(state, COUNT);
        return NEXT[(direction * FLAGS + flagIndex) * COUNT + state];
    }

    /**
     * Whether a packet leaves the connection's state as it is: {@code next(direction, flagIndex(tcpFlags), state) ==
     * state}, for the fast loop, which leaves at any change.
     *
     * @param direction {@link #INPUT}, {@link #OUTPUT} or {@link #INPUT_ONLY}.
     * @param tcpFlags  the segment's flags byte.
     * @param state     the connection's state; one out of range never stays.
     */
    public static boolean stays(final int direction, final int tcpFlags, final int state)
    {
        return (STAYS[direction << 4 | flagBits(tcpFlags)] >>> state & 1) != 0;
    }

    /**
     * {@code next(direction, flagIndex(tcpFlags), state)} in one table read, for the fast loop.
     *
     * @param direction {@link #INPUT}, {@link #OUTPUT} or {@link #INPUT_ONLY}.
     * @param tcpFlags  the segment's flags byte.
     * @param state     the connection's state, below {@link #COUNT}.
     */
    public static int nextOf(final int direction, final int tcpFlags, final int state)
    {
        return NEXT_BY_FLAG_BITS[(direction << 4 | flagBits(tcpFlags)) << 4 | state & 15];
    }

    private static byte[] nextByFlagBitsTable()
    {
        final byte[] table = new byte[DIRECTIONS << 8];
        for (int direction = 0; direction < DIRECTIONS; direction++)
        {
            for (int bits = 0; bits < 16; bits++)
            {
                final int tcpFlags = bits & (TCP_FIN | TCP_SYN | TCP_RST) | (bits & 8) << 1;
                for (int state = 0; state < 16; state++)
                {
                    table[(direction << 4 | bits) << 4 | state] =
                        (byte)(state < COUNT ? next(direction, flagIndex(tcpFlags), state) : state);
                }
            }
        }
        return table;
    }

    /** FIN, SYN and RST in bits 0 to 2 and ACK in bit 3: what {@link #flagIndex} reads of a flags byte. */
    private static int flagBits(final int tcpFlags)
    {
        return tcpFlags & (TCP_FIN | TCP_SYN | TCP_RST) | (tcpFlags & TCP_ACK) >>> 1;
    }

    private static int[] staysTable()
    {
        final int[] table = new int[DIRECTIONS << 4];
        for (int direction = 0; direction < DIRECTIONS; direction++)
        {
            for (int bits = 0; bits < 16; bits++)
            {
                final int tcpFlags = bits & (TCP_FIN | TCP_SYN | TCP_RST) | (bits & 8) << 1;
                for (int state = 0; state < COUNT; state++)
                {
                    if (next(direction, flagIndex(tcpFlags), state) == state)
                    {
                        table[direction << 4 | bits] |= 1 << state;
                    }
                }
            }
        }
        return table;
    }

    /**
     * The table to use for a packet, as the kernel's {@code set_tcp_state} chooses it: while the connection's
     * NOOUTPUT flag is set (every forwarding method except NAT), client packets use {@link #INPUT_ONLY}. The
     * caller clears NOOUTPUT when it sees an {@link #OUTPUT} packet.
     *
     * @param packetDirection {@link #INPUT} or {@link #OUTPUT}.
     * @param noOutput        whether the connection's NOOUTPUT flag is set.
     * @return the direction to pass to {@link #next}.
     */
    public static int tableDirection(final int packetDirection, final boolean noOutput)
    {
        return noOutput && packetDirection != OUTPUT ? INPUT_ONLY : packetDirection;
    }

    /**
     * Whether a state counts toward the server's active connections (the kernel's
     * set_tcp_state, which moves a connection between the active and inactive counts as its state enters or
     * leaves the active set).
     *
     * @param state           a TCP state; anything out of range is inactive, as in the kernel.
     * @param establishedOnly the older kernels' rule (only ESTABLISHED is active) instead of the default
     *                        (ESTABLISHED, SYN_SENT, SYN_RECV and SYNACK).
     * @return true if the state is active.
     */
    public static boolean isActive(final int state, final boolean establishedOnly)
    {
        if (establishedOnly)
        {
            return state == ESTABLISHED;
        }
        return state >= 0 && state < COUNT && ((ACTIVE_MASK >>> state) & 1) != 0;
    }

    /**
     * The state's name as {@code ipvsadm -Lc} prints it.
     *
     * @param state a TCP state.
     * @return e.g. {@code "SYN_RECV"}.
     * @throws IndexOutOfBoundsException if {@code state} is not a TCP state.
     */
    public static String name(final int state)
    {
        return NAMES[Objects.checkIndex(state, COUNT)];
    }
}
