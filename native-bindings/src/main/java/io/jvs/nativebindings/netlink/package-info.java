/**
 * rtnetlink (NETLINK_ROUTE) through the {@link io.jvs.nativebindings.Syscalls} downcalls: how jvs follows the
 * kernel's links, addresses, routes and neighbours instead of keeping tables of its own, as IPVS does.
 * <p>
 * {@link io.jvs.nativebindings.netlink.RouteNetlink} makes synchronous requests: dumps of the tables, the route
 * the kernel would choose for one destination ({@code ip route get}), and neighbour resolution.
 * {@link io.jvs.nativebindings.netlink.NetlinkSubscription} delivers the kernel's change notifications without
 * blocking, for a duty cycle, as {@link io.jvs.nativebindings.netlink.NetlinkEvent}s. Subscribe first, dump
 * second, then apply the events: each carries the object's whole state, so replaying what the dump already saw is
 * harmless. The decoding ({@code RtnetlinkParser}) checks every length against its message; a message that does
 * not hold together is a {@link io.jvs.nativebindings.netlink.NetlinkFormatException}, never a read past it.
 * <p>
 * What the kernel (6.18, in network namespaces joined by veth pairs) was seen to do, by the tests of this package
 * unless said otherwise:
 * <ul>
 * <li><b>Resolution with NTF_USE</b> (RTM_NEWNEIGH, NLM_F_CREATE; neigh_add calls neigh_event_send). With no
 * entry, the kernel creates one that is INCOMPLETE right away, sends a broadcast solicitation, and the entry is
 * REACHABLE with the peer's MAC as soon as the peer answers (IPv4 and IPv6 alike; IPv6 solicits only once its
 * link-local address has finished duplicate address detection), or FAILED after the multicast solicitations
 * (three, retrans_time apart) go unanswered. A FAILED entry given NTF_USE is INCOMPLETE again. A STALE entry goes
 * to DELAY at once, then after delay_first_probe_time to a unicast PROBE, and REACHABLE when answered. NTF_USE
 * on a PERMANENT entry strips NUD_PERMANENT (__neigh_update): {@code ip neigh change ... use} turned one
 * INCOMPLETE and then FAILED, its MAC lost (seen by hand with iproute2); {@code resolve} therefore leaves
 * PERMANENT and NOARP entries alone, which a test checks.</li>
 * <li><b>Route lookups</b> (RTM_GETROUTE with RTA_DST): no route is ENETUNREACH, an {@code unreachable} route
 * EHOSTUNREACH, a {@code prohibit} route EACCES, a {@code blackhole} route EINVAL with no extended-ack text, in
 * both families; {@code routeTo} returns null for all four. Under strict checking IPv6 refuses RTM_F_LOOKUP_TABLE
 * (EINVAL, with text), so only IPv4 lookups set it. Policy rules by source ({@code from}) and by firewall mark
 * apply. An IPv4 lookup from a source address that is not local is ENETUNREACH (seen with {@code ip route get}).
 * A local destination answers RTN_LOCAL through {@code lo} from the local table.</li>
 * <li><b>Notifications</b> arrive within milliseconds of the {@code ip} command. {@code ip route replace} sends
 * RTM_NEWROUTE with NLM_F_REPLACE and no RTM_DELROUTE for the route it replaced.</li>
 * <li><b>A link set down</b> ({@code ip link set down}): its IPv4 routes in the main table are deleted <em>without
 * any RTM_DELROUTE</em>, so a consumer must treat a LinkChanged that lost IFF_UP as their removal (or dump the
 * routes again); its IPv4 addresses stay, with their local routes. Its IPv6 routes are removed with RTM_DELROUTE
 * and its neighbours, PERMANENT ones included, with RTM_DELNEIGH; its IPv6 addresses go too (AddressRemoved, seen
 * by hand).</li>
 * <li><b>Carrier loss</b> (the veth peer set down): the link stays IFF_UP without IFF_LOWER_UP and IFF_RUNNING
 * (linkwatch_schedule_work may hold a carrier change back for up to a second, so the test allows three); the
 * routes stay, flagged
 * RTNH_F_LINKDOWN, and the kernel still chooses them (ignore_routes_with_linkdown is 0); learnt neighbours are
 * removed with RTM_DELNEIGH, PERMANENT ones kept.</li>
 * <li><b>Overflow</b>: the subscription asks for 4 MiB with SO_RCVBUFFORCE and reads back 8 MiB. That queue held
 * the notifications of 10 000 routes added with one {@code ip -batch} (seen in a one-off measurement); 20 000
 * overflowed it, and the next receive failed with ENOBUFS, which {@code poll} turns into a Resync after discarding
 * the rest of the queue. With a 64 KiB queue, 2 000 routes overflow it.</li>
 * </ul>
 * Not followed: nexthop objects ({@code ip nexthop}: RTA_NH_ID of a route is not decoded, and the objects' own
 * messages go to RTNLGRP_NEXTHOP, which is not joined), the IPv6 per-interface group (RTNLGRP_IPV6_IFINFO), and
 * the bridge's AF_BRIDGE link and forwarding-database messages, which are skipped.
 */
package io.jvs.nativebindings.netlink;
