package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * libipvs's ipvs_cmp_services and ipvs_cmp_dests under glibc's merge sort, checked against a second, literal
 * rendering of both (unsigned 32-bit differences read as int, msort_with_tmp on an array).
 */
class IpvsOrderTest
{
    /** The C expression (int)(a - b) for two u32 values. */
    private static int difference(final long a, final long b)
    {
        return (int)((a - b) & 0xFFFF_FFFFL);
    }

    private static long[] words(final IpAddress address)
    {
        if (!address.isV6())
        {
            return new long[] {Integer.toUnsignedLong(address.v4()), 0, 0, 0};
        }
        return new long[] {address.high() >>> 32, address.high() & 0xFFFF_FFFFL, address.low() >>> 32,
            address.low() & 0xFFFF_FFFFL};
    }

    private static int referenceServices(final ServiceKey a, final ServiceKey b)
    {
        int r = difference(Integer.toUnsignedLong(a.firewallMark()), Integer.toUnsignedLong(b.firewallMark()));
        if (r != 0)
        {
            return r;
        }
        r = (a.v6() ? 10 : 2) - (b.v6() ? 10 : 2);
        if (r != 0)
        {
            return r;
        }
        r = (a.isFirewallMark() ? 6 : a.protocol().number()) - (b.isFirewallMark() ? 6 : b.protocol().number());
        if (r != 0 || a.isFirewallMark())
        {
            return r;
        }
        final long[] wa = words(a.address());
        final long[] wb = words(b.address());
        for (int i = 0; i < (a.v6() ? 4 : 1) && r == 0; i++)
        {
            r = difference(wa[i], wb[i]);
        }
        return r != 0 ? r : a.port() - b.port();
    }

    private static int referenceDestinations(final DestinationView a, final DestinationView b)
    {
        final long[] wa = words(a.address());
        final long[] wb = words(b.address());
        int r = 0;
        for (int i = 0; i < (a.address().isV6() ? 4 : 1) && r == 0; i++)
        {
            r = difference(wa[i], wb[i]);
        }
        return r != 0 ? r : a.port() - b.port();
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> referenceSort(final List<T> items, final Comparator<T> cmp)
    {
        final Object[] b = items.toArray();
        msort(b, 0, b.length, new Object[b.length], (Comparator<Object>)cmp);
        final List<T> out = new ArrayList<>();
        for (final Object o : b)
        {
            out.add((T)o);
        }
        return out;
    }

    private static void msort(final Object[] b, final int start, final int n, final Object[] tmp,
        final Comparator<Object> cmp)
    {
        if (n <= 1)
        {
            return;
        }
        int n1 = n / 2;
        int n2 = n - n1;
        msort(b, start, n1, tmp, cmp);
        msort(b, start + n1, n2, tmp, cmp);
        int b1 = start;
        int b2 = start + n1;
        int t = 0;
        while (n1 > 0 && n2 > 0)
        {
            if (cmp.compare(b[b1], b[b2]) <= 0)
            {
                tmp[t++] = b[b1++];
                n1--;
            }
            else
            {
                tmp[t++] = b[b2++];
                n2--;
            }
        }
        if (n1 > 0)
        {
            System.arraycopy(b, b1, tmp, t, n1);
        }
        System.arraycopy(tmp, 0, b, start, n - n2);
    }

    private static IpAddress randomAddress(final Random random, final boolean v6)
    {
        return v6 ? IpAddress.ofV6(random.nextLong(), random.nextInt(4) == 0 ? 0 : random.nextLong()) :
            IpAddress.ofV4(random.nextInt());
    }

    private static ServiceView randomService(final Random random)
    {
        final boolean v6 = random.nextBoolean();
        final ServiceKey key;
        if (random.nextInt(4) == 0)
        {
            key = ServiceKey.ofFirewallMark(random.nextInt(3) == 0 ? 1 + random.nextInt(10) : random.nextInt() | 1, v6);
        }
        else
        {
            key = ServiceKey.of(Protocol.values()[random.nextInt(3)], randomAddress(random, v6),
                random.nextInt(4) * 80);
        }
        return ServiceView.of(key, ServiceSettings.of("rr", v6));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234, 99991, 31337, 7777777})
    void shouldSortServicesExactlyAsLibipvsUnderGlibcQsort(final long seed)
    {
        final Random random = new Random(seed);
        final List<ServiceView> services = new ArrayList<>();
        final int count = 1 + random.nextInt(600);
        for (int i = 0; i < count; i++)
        {
            services.add(randomService(random));
        }
        assertThat(IpvsOrder.sortServices(services)).containsExactlyElementsOf(
            referenceSort(services, (a, b) -> referenceServices(a.key(), b.key())));
    }

    @ParameterizedTest
    @ValueSource(longs = {5, 6, 7, 8, 2024, 65537})
    void shouldSortDestinationsExactlyAsLibipvsUnderGlibcQsort(final long seed)
    {
        final Random random = new Random(seed);
        final List<DestinationView> destinations = new ArrayList<>();
        final int count = 1 + random.nextInt(300);
        for (int i = 0; i < count; i++)
        {
            destinations.add(DestinationView.of(randomAddress(random, random.nextInt(3) == 0), random.nextInt(3) * 8080,
                ForwardMethod.TUN, 1));
        }
        assertThat(IpvsOrder.sortDestinations(destinations)).containsExactlyElementsOf(
            referenceSort(destinations, IpvsOrderTest::referenceDestinations));
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14})
    void shouldSortInAddressOrderWhenNoTwoAddressesAreMoreThanHalfTheRangeApart(final long seed)
    {
        final Random random = new Random(seed);
        final long base = random.nextInt() & 0xFFFF_FFFFL;
        final List<DestinationView> destinations = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            destinations.add(DestinationView.of(IpAddress.ofV4((int)(base + random.nextInt(Integer.MAX_VALUE))),
                random.nextInt(65536), ForwardMethod.DR, 1));
        }
        final List<DestinationView> expected = new ArrayList<>(destinations);
        expected.sort(Comparator.comparing((DestinationView d) -> Integer.toUnsignedLong(d.address().v4()) -
            (base & 0xFFFF_FFFFL) & 0xFFFF_FFFFL).thenComparingInt(DestinationView::port));
        assertThat(IpvsOrder.sortDestinations(destinations)).containsExactlyElementsOf(expected);
    }

    @Test
    void shouldPutAddressesMoreThanHalfTheRangeApartTheWrongWayRound()
    {
        final DestinationView low = DestinationView.of(IpAddress.parse("10.0.0.1"), 80, ForwardMethod.DR, 1);
        final DestinationView high = DestinationView.of(IpAddress.parse("200.0.0.1"), 80, ForwardMethod.DR, 1);
        assertThat(IpvsOrder.sortDestinations(List.of(low, high))).containsExactly(high, low);
    }

    @Test
    void shouldDependOnTheInputOrderWhenTheComparisonIsACycle()
    {
        // 0.0.0.1 < 96.0.0.1 < 192.0.0.1 < 0.0.0.1: the merge sort's order follows from where each starts.
        final DestinationView a = DestinationView.of(IpAddress.parse("0.0.0.1"), 0, ForwardMethod.DR, 1);
        final DestinationView b = DestinationView.of(IpAddress.parse("96.0.0.1"), 0, ForwardMethod.DR, 1);
        final DestinationView c = DestinationView.of(IpAddress.parse("192.0.0.1"), 0, ForwardMethod.DR, 1);
        assertThat(IpvsOrder.sortDestinations(List.of(a, b, c))).containsExactly(a, b, c);
        assertThat(IpvsOrder.sortDestinations(List.of(c, b, a))).containsExactly(c, a, b);
    }

    @Test
    void shouldCompareServicesByMarkFamilyProtocolAddressPort()
    {
        final ServiceKey tcp = ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.1"), 80);
        assertThat(IpvsOrder.compareServices(tcp, ServiceKey.of(Protocol.UDP, IpAddress.parse("10.0.0.1"), 80)))
            .isNegative();
        assertThat(IpvsOrder.compareServices(tcp, ServiceKey.of(Protocol.TCP, IpAddress.parse("2001:db8::1"), 80)))
            .isNegative();
        assertThat(IpvsOrder.compareServices(tcp, ServiceKey.ofFirewallMark(1, false))).isNegative();
        assertThat(IpvsOrder.compareServices(tcp, ServiceKey.ofFirewallMark((int)3000000000L, false))).isPositive();
        assertThat(IpvsOrder.compareServices(tcp, ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.1"), 443)))
            .isNegative();
    }

    @Test
    void shouldCompareAnIpv4DestinationWithTheFirstWordOfAnIpv6One()
    {
        // ipvs_cmp_dests looks at the first server's family only.
        final DestinationView v4 = DestinationView.of(IpAddress.parse("32.1.13.184"), 80, ForwardMethod.TUN, 1);
        final DestinationView v6 = DestinationView.of(IpAddress.parse("2001:db8::1"), 80, ForwardMethod.TUN, 1);
        assertThat(IpvsOrder.compareDestinations(v4, v6)).isZero();
        assertThat(IpvsOrder.compareDestinations(v6, v4)).isPositive();
    }

    @Test
    void shouldCompareOnlyTheFirstWordWhenTheFirstServerIsIpv4()
    {
        // 2001:db8:1::1 has a second word of 1; an IPv4 first operand is one word, so it is never looked at.
        final DestinationView v4 = DestinationView.of(IpAddress.parse("32.1.13.184"), 80, ForwardMethod.TUN, 1);
        final DestinationView v6 = DestinationView.of(IpAddress.parse("2001:db8:1::1"), 80, ForwardMethod.TUN, 1);
        assertThat(IpvsOrder.compareDestinations(v4, v6)).isZero();
    }

    @Test
    void shouldCompareEachOfTheFourWordsOfIpv6Servers()
    {
        // Words (host order): 2001:0db8 0000:0000 0001:0000 0000:0001 against 2001:0db8 0 0 0000:0001.
        final DestinationView third = DestinationView.of(IpAddress.parse("2001:db8::1:0:0:1"), 80, ForwardMethod.DR, 1);
        final DestinationView plain = DestinationView.of(IpAddress.parse("2001:db8::1"), 80, ForwardMethod.DR, 1);
        assertThat(IpvsOrder.compareDestinations(third, plain)).isPositive();
        assertThat(IpvsOrder.compareDestinations(plain, third)).isNegative();
        final DestinationView fourth = DestinationView.of(IpAddress.parse("2001:db8::2"), 80, ForwardMethod.DR, 1);
        assertThat(IpvsOrder.compareDestinations(fourth, plain)).isPositive();
    }

    @Test
    void shouldOrderServersOfOneAddressByPort()
    {
        final DestinationView http = DestinationView.of(IpAddress.parse("192.168.1.1"), 80, ForwardMethod.NAT, 1);
        final DestinationView alt = DestinationView.of(IpAddress.parse("192.168.1.1"), 8080, ForwardMethod.NAT, 1);
        assertThat(IpvsOrder.compareDestinations(http, alt)).isEqualTo(80 - 8080);
        assertThat(IpvsOrder.sortDestinations(List.of(alt, http))).containsExactly(http, alt);
    }

    @Test
    void shouldKeepTheInputOrderOfServersThatCompareEqual()
    {
        // msort_with_tmp takes the left element unless the comparison says it is greater.
        final DestinationView v4 = DestinationView.of(IpAddress.parse("32.1.13.184"), 80, ForwardMethod.TUN, 1);
        final DestinationView v6 = DestinationView.of(IpAddress.parse("2001:db8::1"), 80, ForwardMethod.TUN, 1);
        assertThat(IpvsOrder.sortDestinations(List.of(v4, v6))).containsExactly(v4, v6);
    }
}
