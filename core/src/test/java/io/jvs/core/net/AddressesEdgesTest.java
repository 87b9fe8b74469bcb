package io.jvs.core.net;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Addresses as the JDK's type and back, their order (IPv4 before IPv6, then unsigned by value), prefixes
 * written without a length, and the address set (the daemon's own addresses) with many members of both
 * families.
 */
class AddressesEdgesTest
{
    @Test
    void shouldConvertToAndFromTheJdksAddressType() throws Exception
    {
        for (final String text : new String[] {"10.0.0.1", "255.254.253.252", "0.0.0.0", "2001:db8::1",
            "fe80::1:2:3:4", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", "::1"})
        {
            final IpAddress address = IpAddress.parse(text);
            final InetAddress jdk = InetAddress.getByName(text);
            assertThat(address.toInetAddress()).as(text).isEqualTo(jdk);
            assertThat(IpAddress.of(jdk)).as(text).isEqualTo(address);
        }
    }

    @Test
    void shouldOrderIpv4BeforeIpv6ThenByUnsignedValue()
    {
        final List<IpAddress> sorted = new ArrayList<>(List.of(
            IpAddress.parse("2001:db8::1"), IpAddress.parse("200.0.0.1"), IpAddress.parse("10.0.0.1"),
            IpAddress.parse("ff00::1"), IpAddress.parse("2001:db8::"), IpAddress.parse("2001:db9::")));
        java.util.Collections.sort(sorted);
        assertThat(sorted).extracting(IpAddress::toString).containsExactly(
            "10.0.0.1", "200.0.0.1", "2001:db8::", "2001:db8::1", "2001:db9::", "ff00::1");
        assertThat(IpAddress.parse("10.0.0.1").compareTo(IpAddress.parse("10.0.0.1"))).isZero();
        assertThat(IpAddress.parse("::a").compareTo(IpAddress.parse("10.0.0.10"))).isPositive();
        // Equal addresses hash alike; an IPv4 address and the IPv6 address with the same low bits are not equal.
        assertThat(IpAddress.parse("10.0.0.1").hashCode()).isEqualTo(IpAddress.ofV4(0x0A00_0001).hashCode());
        assertThat(IpAddress.parse("::a00:1")).isNotEqualTo(IpAddress.parse("10.0.0.1"));
    }

    @Test
    void shouldTakeAPrefixWithoutALengthAsOneAddress()
    {
        final IpPrefix v4 = IpPrefix.parse("10.0.0.1");
        assertThat(v4.length()).isEqualTo(32);
        assertThat(in(v4, "10.0.0.1")).isTrue();
        assertThat(in(v4, "10.0.0.0")).isFalse();
        assertThat(in(v4, "10.0.0.2")).isFalse();
        final IpPrefix v6 = IpPrefix.parse("2001:db8::1");
        assertThat(v6.length()).isEqualTo(128);
        assertThat(in(v6, "2001:db8::1")).isTrue();
        assertThat(in(v6, "2001:db8::")).isFalse();
        assertThat(in(v6, "10.0.0.1")).isFalse();
    }

    private static boolean in(final IpPrefix prefix, final String text)
    {
        final IpAddress address = IpAddress.parse(text);
        return prefix.contains(address.isV6(), address.high(), address.low());
    }

    @Test
    void shouldHoldManyAddressesOfBothFamiliesAndNoOthers()
    {
        final Random random = new Random(7);
        final List<IpAddress> members = new ArrayList<>();
        for (int i = 0; i < 300; i++)
        {
            members.add(random.nextBoolean() ? IpAddress.ofV4(random.nextInt())
                : IpAddress.ofV6(0x2001_0DB8_0000_0000L | random.nextInt(1 << 16), random.nextLong()));
        }
        // Duplicates count once.
        members.add(members.get(0));
        final AddressSet set = new AddressSet(members);
        for (final IpAddress member : members)
        {
            assertThat(set.contains(member)).as("%s", member).isTrue();
        }
        for (int i = 0; i < 300; i++)
        {
            final IpAddress other = random.nextBoolean() ? IpAddress.ofV4(random.nextInt())
                : IpAddress.ofV6(0x2001_0DB8_0000_0000L | random.nextInt(1 << 16), random.nextLong());
            assertThat(set.contains(other)).as("%s", other).isEqualTo(members.contains(other));
        }
        assertThat(new AddressSet(List.of()).contains(IpAddress.parse("10.0.0.1"))).isFalse();
    }

    @Test
    void shouldNameTheIpvsadmOptionOfEachProtocol()
    {
        assertThat(Protocol.TCP.ipvsadmOption()).isEqualTo("-t");
        assertThat(Protocol.UDP.ipvsadmOption()).isEqualTo("-u");
        assertThat(Protocol.SCTP.ipvsadmOption()).isEqualTo("--sctp-service");
    }
}
