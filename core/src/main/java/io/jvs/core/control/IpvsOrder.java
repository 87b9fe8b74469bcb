package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ServiceKey;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order ipvsadm lists services and real servers in, quirks included.
 * <p>
 * libipvs's {@code ipvs_cmp_services} compares firewall mark, address family, protocol, address and port;
 * {@code ipvs_cmp_dests} address and port. The mark and each 32-bit address word are unsigned, and their difference
 * is taken as an unsigned number and then read as a signed int, so two values more than 2^31 apart compare the
 * wrong way round (10.0.0.1 sorts after 200.0.0.1) and the comparison is not even transitive. The list is then
 * sorted by glibc's {@code qsort}, which is a top-down merge sort ({@code msort_with_tmp}: the first half is
 * {@code n / 2} elements, ties keep the left element); with a non-transitive comparison only that exact algorithm
 * gives ipvsadm's order, so it is reproduced here rather than using the JDK's sort.
 */
public final class IpvsOrder
{
    /** AF_INET and AF_INET6 as ipvs_cmp_services subtracts them. */
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    /** The kernel stores IPPROTO_TCP for a firewall-mark service (ip_vs_genl_parse_service). */
    private static final int FWMARK_PROTOCOL = 6;

    private IpvsOrder()
    {
    }

    /**
     * ipvs_cmp_services.
     *
     * @param a a service.
     * @param b another.
     * @return negative, zero or positive, as libipvs computes it.
     */
    public static int compareServices(final ServiceKey a, final ServiceKey b)
    {
        int r = a.firewallMark() - b.firewallMark();
        if (r != 0)
        {
            return r;
        }
        r = family(a.v6()) - family(b.v6());
        if (r != 0)
        {
            return r;
        }
        r = protocol(a) - protocol(b);
        if (r != 0)
        {
            return r;
        }
        r = compareWords(a.address(), a.v6(), b.address());
        if (r != 0)
        {
            return r;
        }
        return a.port() - b.port();
    }

    /**
     * ipvs_cmp_dests: the first server's family decides whether one word or four are compared.
     *
     * @param a a server.
     * @param b another.
     * @return negative, zero or positive, as libipvs computes it.
     */
    public static int compareDestinations(final DestinationView a, final DestinationView b)
    {
        final int r = compareWords(a.address(), a.address().isV6(), b.address());
        if (r != 0)
        {
            return r;
        }
        return a.port() - b.port();
    }

    /**
     * @param services services in kernel order.
     * @return them in ipvsadm's sorted order.
     */
    public static List<ServiceView> sortServices(final List<ServiceView> services)
    {
        return mergeSort(services, (a, b) -> compareServices(a.key(), b.key()));
    }

    /**
     * @param destinations servers in kernel order.
     * @return them in ipvsadm's sorted order.
     */
    public static List<DestinationView> sortDestinations(final List<DestinationView> destinations)
    {
        return mergeSort(destinations, IpvsOrder::compareDestinations);
    }

    /**
     * glibc's msort_with_tmp: split at n / 2, sort both halves, merge taking the left element unless the
     * comparison says it is greater.
     *
     * @param items      the list, not changed.
     * @param comparison any comparison, consistent or not.
     * @return a sorted copy.
     */
    public static <T> List<T> mergeSort(final List<T> items, final Comparator<? super T> comparison)
    {
        final List<T> sorted = new ArrayList<>(items);
        final List<T> scratch = new ArrayList<>(items);
        sort(sorted, scratch, 0, sorted.size(), comparison);
        return sorted;
    }

    private static <T> void sort(
        final List<T> items, final List<T> scratch, final int from, final int count,
        final Comparator<? super T> comparison)
    {
        if (count <= 1)
        {
            return;
        }
        final int leftCount = count / 2;
        final int rightCount = count - leftCount;
        sort(items, scratch, from, leftCount, comparison);
        sort(items, scratch, from + leftCount, rightCount, comparison);
        int left = from;
        int right = from + leftCount;
        final int leftEnd = right;
        final int rightEnd = from + count;
        int out = from;
        while (left < leftEnd && right < rightEnd)
        {
            if (comparison.compare(items.get(left), items.get(right)) <= 0)
            {
                scratch.set(out++, items.get(left++));
            }
            else
            {
                scratch.set(out++, items.get(right++));
            }
        }
        while (left < leftEnd)
        {
            scratch.set(out++, items.get(left++));
        }
        // What is left of the right half is already in place; copy back what was merged.
        for (int i = from; i < out; i++)
        {
            items.set(i, scratch.get(i));
        }
    }

    private static int family(final boolean v6)
    {
        return v6 ? AF_INET6 : AF_INET;
    }

    private static int protocol(final ServiceKey key)
    {
        return key.isFirewallMark() ? FWMARK_PROTOCOL : key.protocol().number();
    }

    /**
     * The address comparison of both libipvs functions: each 32-bit word in host order, subtracted as unsigned and
     * read as signed. An IPv4 address is one word; as the second operand of an IPv6 comparison it is the union
     * {@code nf_inet_addr} with the address in the first word and zeros after.
     */
    private static int compareWords(final IpAddress a, final boolean fourWords, final IpAddress b)
    {
        if (a == null || b == null)
        {
            return 0;
        }
        final int words = fourWords ? 4 : 1;
        for (int i = 0; i < words; i++)
        {
            final int r = word(a, i) - word(b, i);
            if (r != 0)
            {
                return r;
            }
        }
        return 0;
    }

    private static int word(final IpAddress address, final int index)
    {
        if (!address.isV6())
        {
            return index == 0 ? address.v4() : 0;
        }
        final long half = index < 2 ? address.high() : address.low();
        return (int)(index % 2 == 0 ? half >>> 32 : half);
    }
}
