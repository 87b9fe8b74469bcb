package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Persistence over IPv6 (ipvsadm -M as a prefix length, 1..128): clients that differ only after the prefix
 * share a template, a client that differs in the prefix's last bit does not; the prefix may end in either
 * half of the address or on the boundary between them.
 */
class PipelinePersistenceIpv6Test
{
    private static final IpAddress VIP6 = IpAddress.parse("2001:db8::100");
    private static final long MAC_A = 0x02_00_00_00_01_01L;
    private static final long MAC_B = 0x02_00_00_00_01_02L;
    private static final long HIGH = 0x2001_0DB8_AAAA_BBBBL;
    private static final long LOW = 0xCCCC_DDDD_EEEE_1111L;

    private static PipelineFixture persistent(final int prefix)
    {
        return new PipelineFixture()
            .rules("-A -t [2001:db8::100]:443 -s rr -p 360 -M " + prefix,
                "-a -t [2001:db8::100]:443 -r [2001:db8:1::2]:443 -m",
                "-a -t [2001:db8::100]:443 -r [2001:db8:1::1]:443 -m")
            .neighbour("2001:db8:1::1", MAC_A)
            .neighbour("2001:db8:1::2", MAC_B)
            .start();
    }

    /** The base client with bit {@code bit} (0 the most significant of the 128) flipped; -1 for none. */
    private static IpAddress client(final int bit)
    {
        long high = HIGH;
        long low = LOW;
        if (bit >= 0 && bit < 64)
        {
            high ^= 1L << (63 - bit);
        }
        else if (bit >= 64)
        {
            low ^= 1L << (127 - bit);
        }
        return IpAddress.ofV6(high, low);
    }

    private static long serverMac(final PipelineFixture fixture, final IpAddress client, final int port)
    {
        return mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP6, 64, Segment.tcp(port, 443, SYN, 0)))
            .frame(), 0);
    }

    @ParameterizedTest(name = "/{0}")
    @ValueSource(ints = {1, 16, 48, 63, 64, 65, 96, 127, 128})
    void shouldShareATemplateWithinThePrefixOnly(final int prefix)
    {
        final PipelineFixture fixture = persistent(prefix);
        final long first = serverMac(fixture, client(-1), 1000);
        assertThat(first).isEqualTo(MAC_A);
        if (prefix < 128)
        {
            // The first bit after the prefix, and the last bit of the address: the same network.
            assertThat(serverMac(fixture, client(prefix), 1001)).as("bit %d", prefix).isEqualTo(first);
            assertThat(serverMac(fixture, client(127), 1002)).as("bit 127").isEqualTo(first);
        }
        // The last bit of the prefix: another network, which rr sends to the other server.
        assertThat(serverMac(fixture, client(prefix - 1), 1003)).as("bit %d", prefix - 1).isEqualTo(MAC_B);
    }
}
