package io.jvs.core.packet;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which ICMP and ICMPv6 types are errors (RFC 792 and RFC 4443: the messages that quote the packet that
 * caused them), and the packed verdict word round trip.
 */
class L4HeadersAndVerdictTest
{
    @Test
    void shouldTellTheIcmpErrorTypesOfRfc792()
    {
        // 3 destination unreachable, 4 source quench, 5 redirect, 11 time exceeded, 12 parameter problem.
        for (int type = 0; type < 256; type++)
        {
            final boolean error = type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
            assertThat(L4Headers.isIcmpError(type)).as("type %d", type).isEqualTo(error);
        }
    }

    @Test
    void shouldTellTheIcmpv6ErrorTypesOfRfc4443()
    {
        // 1 destination unreachable, 2 packet too big, 3 time exceeded, 4 parameter problem; 0 is reserved
        // and 100, 101, 127 (private experimentation, extension) are not jvs's to answer or translate.
        for (int type = 0; type < 256; type++)
        {
            assertThat(L4Headers.isIcmpv6Error(type)).as("type %d", type).isEqualTo(type >= 1 && type <= 4);
        }
    }

    @Test
    void shouldCarryTheEgressPortOfATransmitVerdict()
    {
        for (final int port : new int[] {0, 1, 2, 127, 128, 255})
        {
            final int verdict = Verdict.transmit(port);
            assertThat(Verdict.kind(verdict)).isEqualTo(Verdict.TRANSMIT);
            assertThat(Verdict.port(verdict)).isEqualTo(port);
            assertThat(Verdict.toString(verdict)).isEqualTo("transmit:" + port);
        }
    }

    @Test
    void shouldCarryThePortAndTheMtuOfAVerdictToSendInFragments()
    {
        for (int port = 0; port < 256; port += 17)
        {
            for (int mtu = 68; mtu <= 65535; mtu += 251)
            {
                for (final int each : new int[] {mtu, 65535})
                {
                    final int verdict = Verdict.transmitInFragments(port, each);
                    assertThat(Verdict.kind(verdict)).isEqualTo(Verdict.TRANSMIT);
                    assertThat(Verdict.port(verdict)).isEqualTo(port);
                    assertThat(Verdict.inFragments(verdict)).isTrue();
                    assertThat(Verdict.fragmentMtu(verdict)).as("MTU %d", each).isEqualTo(each & ~1);
                    assertThat(Verdict.toString(verdict)).isEqualTo("transmit:" + port + ":fragments");
                }
            }
            assertThat(Verdict.inFragments(Verdict.transmit(port))).isFalse();
        }
    }

    @Test
    void shouldCarryTheReasonOfADropVerdict()
    {
        for (final DropReason reason : DropReason.values())
        {
            final int verdict = Verdict.drop(reason);
            assertThat(Verdict.kind(verdict)).isEqualTo(Verdict.DROP);
            assertThat(DropReason.of(Verdict.reason(verdict))).isEqualTo(reason);
            assertThat(Verdict.toString(verdict)).isEqualTo("drop:" + reason.label());
        }
        assertThat(Verdict.toString(Verdict.pass())).isEqualTo("pass");
        assertThat(Verdict.kind(Verdict.pass())).isEqualTo(Verdict.PASS);
    }
}
