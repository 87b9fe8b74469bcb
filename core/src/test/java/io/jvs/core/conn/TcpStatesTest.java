package io.jvs.core.conn;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static io.jvs.core.conn.TcpStates.CLOSE;
import static io.jvs.core.conn.TcpStates.ESTABLISHED;
import static io.jvs.core.conn.TcpStates.FLAG_ACK;
import static io.jvs.core.conn.TcpStates.FLAG_FIN;
import static io.jvs.core.conn.TcpStates.FLAG_NONE;
import static io.jvs.core.conn.TcpStates.FLAG_RST;
import static io.jvs.core.conn.TcpStates.FLAG_SYN;
import static io.jvs.core.conn.TcpStates.INPUT;
import static io.jvs.core.conn.TcpStates.INPUT_ONLY;
import static io.jvs.core.conn.TcpStates.OUTPUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The kernel's choices around the TCP state table ({@code ip_vs_proto_tcp.c}): the flag priority of
 * {@code tcp_state_idx} (RST, SYN, FIN, ACK), a segment with none of them, which states count as active
 * ({@code tcp_state_active_table} of current kernels, or only ESTABLISHED as older kernels counted), and how
 * {@code set_tcp_state} picks the table for an entry with the NOOUTPUT flag.
 */
class TcpStatesTest
{
    private static final int FIN = 0x01;
    private static final int SYN = 0x02;
    private static final int RST = 0x04;
    private static final int PSH = 0x08;
    private static final int ACK = 0x10;
    private static final int URG = 0x20;
    private static final int ECE = 0x40;
    private static final int CWR = 0x80;

    @Test
    void shouldFollowTheKernelsPriorityForEveryFlagsByte()
    {
        // tcp_state_idx: RST, then SYN, then FIN, then ACK; the other four bits never matter.
        for (int flags = 0; flags < 256; flags++)
        {
            final int expected = (flags & RST) != 0 ? FLAG_RST : (flags & SYN) != 0 ? FLAG_SYN :
                (flags & FIN) != 0 ? FLAG_FIN : (flags & ACK) != 0 ? FLAG_ACK : FLAG_NONE;
            assertThat(TcpStates.flagIndex(flags)).as("flags 0x%02x", flags).isEqualTo(expected);
        }
    }

    @Test
    void shouldPickRstWhenRstIsSetWhateverElseIs()
    {
        assertThat(TcpStates.flagIndex(RST)).isEqualTo(FLAG_RST);
        assertThat(TcpStates.flagIndex(RST | ACK)).isEqualTo(FLAG_RST);
        assertThat(TcpStates.flagIndex(RST | SYN)).isEqualTo(FLAG_RST);
        assertThat(TcpStates.flagIndex(RST | FIN | ACK)).isEqualTo(FLAG_RST);
        assertThat(TcpStates.flagIndex(0xFF)).isEqualTo(FLAG_RST);
    }

    @Test
    void shouldPickSynOverFinAndAckWhenRstIsClear()
    {
        assertThat(TcpStates.flagIndex(SYN)).isEqualTo(FLAG_SYN);
        assertThat(TcpStates.flagIndex(SYN | ACK)).isEqualTo(FLAG_SYN);
        assertThat(TcpStates.flagIndex(SYN | FIN)).isEqualTo(FLAG_SYN);
        assertThat(TcpStates.flagIndex(SYN | ECE | CWR)).isEqualTo(FLAG_SYN);
    }

    @Test
    void shouldPickFinOverAckWhenNeitherRstNorSynIsSet()
    {
        assertThat(TcpStates.flagIndex(FIN)).isEqualTo(FLAG_FIN);
        assertThat(TcpStates.flagIndex(FIN | ACK)).isEqualTo(FLAG_FIN);
        assertThat(TcpStates.flagIndex(FIN | PSH | ACK)).isEqualTo(FLAG_FIN);
    }

    @Test
    void shouldPickAckWhenItIsTheOnlyStateFlag()
    {
        assertThat(TcpStates.flagIndex(ACK)).isEqualTo(FLAG_ACK);
        assertThat(TcpStates.flagIndex(PSH | ACK)).isEqualTo(FLAG_ACK);
        assertThat(TcpStates.flagIndex(URG | ACK | ECE)).isEqualTo(FLAG_ACK);
    }

    @Test
    void shouldReportNoFlagWhenNoneOfRstSynFinAckIsSet()
    {
        for (final int flags : new int[] {0, PSH, URG, ECE, CWR, PSH | URG | ECE | CWR})
        {
            assertThat(TcpStates.flagIndex(flags)).as("flags 0x%02x", flags).isEqualTo(FLAG_NONE);
        }
    }

    @Test
    void shouldDependOnlyOnRstSynFinAckWhenAnyFlagsByteIsGiven()
    {
        // Every byte against an independent statement of the priority rule.
        for (int flags = 0; flags < 256; flags++)
        {
            final int expected = (flags & RST) != 0 ? FLAG_RST
                : (flags & SYN) != 0 ? FLAG_SYN
                : (flags & FIN) != 0 ? FLAG_FIN
                : (flags & ACK) != 0 ? FLAG_ACK
                : FLAG_NONE;
            assertThat(TcpStates.flagIndex(flags)).as("flags 0x%02x", flags).isEqualTo(expected);
        }
    }

    @Test
    void shouldSayAPacketLeavesTheStateAsItIsExactlyWhenTheTableKeepsIt()
    {
        // The fast loop's one-load test against the table it stands for: every direction, flags byte and state, and
        // states out of range, which must never count as kept.
        int kept = 0;
        for (final int direction : new int[] {INPUT, OUTPUT, INPUT_ONLY})
        {
            for (int flags = 0; flags < 256; flags++)
            {
                for (int state = 0; state < TcpStates.COUNT; state++)
                {
                    final boolean expected = TcpStates.next(direction, TcpStates.flagIndex(flags), state) == state;
                    assertThat(TcpStates.stays(direction, flags, state))
                        .as("direction %d, flags 0x%02x, %s", direction, flags, TcpStates.name(state))
                        .isEqualTo(expected);
                    kept += expected ? 1 : 0;
                }
                for (int state = TcpStates.COUNT; state < 32; state++)
                {
                    assertThat(TcpStates.stays(direction, flags, state)).as("state %d", state).isFalse();
                }
            }
        }
        assertThat(kept).isPositive();
        assertThat(TcpStates.stays(INPUT, TcpStates.TCP_ACK, ESTABLISHED)).isTrue();
        assertThat(TcpStates.stays(INPUT, TcpStates.TCP_ACK | TcpStates.TCP_FIN, ESTABLISHED)).isFalse();
    }

    @Test
    void shouldCloseFromEveryStateWhenThePacketHasNoStateFlag()
    {
        for (final int direction : new int[] {INPUT, OUTPUT, INPUT_ONLY})
        {
            for (int state = 0; state < TcpStates.COUNT; state++)
            {
                assertThat(TcpStates.next(direction, TcpStates.flagIndex(PSH), state))
                    .as("direction %d from %s", direction, TcpStates.name(state))
                    .isEqualTo(CLOSE);
            }
        }
    }

    @Test
    void shouldCountHandshakeStatesAsActiveWhenTheCurrentKernelsRuleApplies()
    {
        assertThat(activeStates(false)).containsExactly("ESTABLISHED", "SYN_SENT", "SYN_RECV", "SYNACK");
    }

    @Test
    void shouldCountOnlyEstablishedAsActiveWhenTheOlderRuleIsChosen()
    {
        assertThat(activeStates(true)).containsExactly("ESTABLISHED");
    }

    @Test
    void shouldTreatOutOfRangeStatesAsInactiveWhenAskedIfActive()
    {
        for (final boolean establishedOnly : new boolean[] {false, true})
        {
            assertThat(TcpStates.isActive(-1, establishedOnly)).isFalse();
            assertThat(TcpStates.isActive(TcpStates.COUNT, establishedOnly)).isFalse();
            // 33 would alias state 1 (ESTABLISHED) if the shift were not range-checked.
            assertThat(TcpStates.isActive(33, establishedOnly)).isFalse();
        }
    }

    @Test
    void shouldUseInputOnlyForClientPacketsWhenNoOutputIsSet()
    {
        assertThat(TcpStates.tableDirection(INPUT, true)).isEqualTo(INPUT_ONLY);
        assertThat(TcpStates.tableDirection(OUTPUT, true)).isEqualTo(OUTPUT);
        assertThat(TcpStates.tableDirection(INPUT, false)).isEqualTo(INPUT);
        assertThat(TcpStates.tableDirection(OUTPUT, false)).isEqualTo(OUTPUT);
    }

    @Test
    void shouldRejectArgumentsOutsideTheTableWhenAskedForTheNextState()
    {
        assertThatThrownBy(() -> TcpStates.next(INPUT, FLAG_ACK, TcpStates.COUNT))
            .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> TcpStates.next(INPUT, FLAG_ACK, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> TcpStates.next(TcpStates.DIRECTIONS, FLAG_ACK, ESTABLISHED))
            .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> TcpStates.next(INPUT, TcpStates.FLAGS, ESTABLISHED))
            .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> TcpStates.name(TcpStates.COUNT)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void shouldNotAllocateWhenPacketsAreClassifiedAndMoved()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled())
            .as("this JVM measures allocation per thread").isTrue();
        int sink = churn(10_000);

        final long before = threads.getCurrentThreadAllocatedBytes();
        sink += churn(1_000_000);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(sink).isNotZero();
        // A per-call allocation of even 16 bytes would come to 16 MB here.
        assertThat(allocated).isLessThan(64 * 1024);
    }

    private static int churn(final int rounds)
    {
        int state = TcpStates.NONE;
        int sum = 0;
        for (int i = 0; i < rounds; i++)
        {
            final int direction = TcpStates.tableDirection(i & 1, (i & 2) != 0);
            state = TcpStates.next(direction, TcpStates.flagIndex(i * 7), state);
            sum += TcpStates.isActive(state, (i & 4) != 0) ? state : 1;
        }
        return sum;
    }

    private static List<String> activeStates(final boolean establishedOnly)
    {
        final List<String> active = new ArrayList<>();
        for (int state = 0; state < TcpStates.COUNT; state++)
        {
            if (TcpStates.isActive(state, establishedOnly))
            {
                active.add(TcpStates.name(state));
            }
        }
        return active;
    }
}
