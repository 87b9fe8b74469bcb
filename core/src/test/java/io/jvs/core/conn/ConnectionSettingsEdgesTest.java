package io.jvs.core.conn;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges of the per-state TCP timeouts and of the server-address slots, at each end.
 */
class ConnectionSettingsEdgesTest
{
    @Test
    void shouldSetATcpStateTimeoutFromOneSecondToTheMaximum()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        timeouts.setTcpState(TcpStates.NONE, 1);
        assertThat(timeouts.tcpMs(TcpStates.NONE)).isEqualTo(1000);
        timeouts.setTcpState(TcpStates.COUNT - 1, ConnectionTimeouts.MAX_SECONDS);
        assertThat(timeouts.tcpMs(TcpStates.COUNT - 1)).isEqualTo(ConnectionTimeouts.MAX_SECONDS * 1000);
    }

    @Test
    void shouldRefuseTimeoutsOutsideTheRangeAndStatesThatDoNotExist()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        final int before = timeouts.tcpMs(TcpStates.SYN_RECV);
        assertThatIllegalArgumentException().isThrownBy(() -> timeouts.setTcpState(TcpStates.SYN_RECV, 0))
            .withMessage("timeout for SYN_RECV must be 1.." + ConnectionTimeouts.MAX_SECONDS + " seconds: 0");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> timeouts.setTcpState(TcpStates.SYN_RECV, ConnectionTimeouts.MAX_SECONDS + 1))
            .withMessageStartingWith("timeout for SYN_RECV must be 1..");
        assertThatIllegalArgumentException().isThrownBy(() -> timeouts.setTcpState(-1, 5))
            .withMessage("no TCP state -1");
        assertThatIllegalArgumentException().isThrownBy(() -> timeouts.setTcpState(TcpStates.COUNT, 5))
            .withMessage("no TCP state " + TcpStates.COUNT);
        assertThat(timeouts.tcpMs(TcpStates.SYN_RECV)).isEqualTo(before);
    }

    @Test
    void shouldMatchAReplyOnlyFromAnExistingSlotOtherThanZero()
    {
        // Slot 0 is "no server"; slots 1 and 2 are servers, 2 without a port of its own.
        final ServerAddresses servers = new ServerAddresses(
            new long[] {0, 0, 0}, new long[] {0x0A00_0001L, 0x0A00_0001L, 0x0A00_0002L}, new int[] {80, 80, 0});
        assertThat(servers.slots()).isEqualTo(3);
        assertThat(servers.matches(0, 0, 0x0A00_0001L, 80, 80)).isFalse();
        assertThat(servers.matches(1, 0, 0x0A00_0001L, 80, 80)).isTrue();
        assertThat(servers.matches(2, 0, 0x0A00_0002L, 443, 443)).isTrue();
        assertThat(servers.matches(2, 0, 0x0A00_0002L, 80, 443)).isFalse();
        assertThat(servers.matches(3, 0, 0x0A00_0002L, 443, 443)).isFalse();
        assertThat(servers.matches(-1, 0, 0x0A00_0002L, 443, 443)).isFalse();
        assertThat(servers.matches(1, 1, 0x0A00_0001L, 80, 80)).isFalse();
    }
}
