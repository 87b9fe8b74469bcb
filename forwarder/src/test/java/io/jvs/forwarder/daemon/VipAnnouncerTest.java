package io.jvs.forwarder.daemon;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import io.jvs.forwarder.daemon.it.Netns;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The announcer on one end of a veth, its VIPs on no interface, and a peer namespace whose kernel resolves them:
 * the peer learns the announcer's MAC for a VIP by asking (ARP, neighbour solicitation) while {@link
 * VipAnnouncer#poll} runs, never for an address that is not a VIP, and without asking after {@link
 * VipAnnouncer#announce}; the answers to a duplicate address detection probe and an ARP probe are checked byte by
 * byte. Needs root, as CI has.
 */
class VipAnnouncerTest
{
    private static final String LB_MAC = "02:00:00:9a:00:01";
    private static final long LB_MAC_VALUE = 0x0200_009a_0001L;
    private static final String PEER_MAC = "02:00:00:9a:00:02";
    private static final String VIP4 = "10.9.9.9";
    private static final String VIP6 = "2001:db8:9::9";
    private static final Set<IpAddress> VIPS = Set.of(IpAddress.parse(VIP4), IpAddress.parse(VIP6));
    private static final Duration WAIT = Duration.ofSeconds(6);

    private final Syscalls syscalls = Syscalls.create();
    private TestNetwork network;
    private String lb;
    private String peer;
    private VipAnnouncer announcer;
    private Thread poller;
    private final AtomicBoolean polling = new AtomicBoolean();
    private final AtomicReference<Set<IpAddress>> vips = new AtomicReference<>(VIPS);

    @BeforeEach
    void createNetwork()
    {
        network = TestNetwork.create("viparp");
        lb = network.namespace("lb");
        peer = network.namespace("peer");
        network.veth(lb, "va0", peer, "va1");
        Netns.ipBatch(lb, List.of("link set va0 address " + LB_MAC));
        Netns.ipBatch(peer, List.of("link set va1 address " + PEER_MAC, "addr add 10.9.9.1/24 dev va1",
            "addr add 2001:db8:9::1/64 dev va1 nodad"));
        final int ifindex = Netns.ifindex(lb, "va0");
        announcer = TestNetwork.callIn(lb, () -> VipAnnouncer.open(syscalls,
            List.of(new VipAnnouncer.Interface("va0", ifindex, LB_MAC_VALUE, null, null))));
    }

    @AfterEach
    void removeNetwork() throws InterruptedException
    {
        try
        {
            stopPolling();
            if (announcer != null)
            {
                announcer.close();
            }
        }
        finally
        {
            network.close();
        }
    }

    /** The conductor's loop, in short: one thread polls the announcer until told to stop. */
    private void startPolling()
    {
        polling.set(true);
        poller = Thread.ofPlatform().name("announcer-poll").start(() ->
        {
            while (polling.get())
            {
                announcer.poll(vips.get());
                try
                {
                    Thread.sleep(1);
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
            }
        });
    }

    private void stopPolling() throws InterruptedException
    {
        polling.set(false);
        if (poller != null)
        {
            poller.join();
            poller = null;
        }
    }

    /** Makes the peer's kernel resolve {@code address}: a datagram to it waits on the neighbour entry. */
    private void sendDatagramFromPeer(final String address)
    {
        network.inNamespace(peer, "bash", "-c", "echo x > /dev/udp/" + address + "/9");
    }

    private String neighbour(final String address)
    {
        return Netns.ip(peer, "neigh", "show", address, "dev", "va1").trim();
    }

    private String awaitNeighbour(final String address, final Predicate<String> wanted) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        String entry = neighbour(address);
        while (!wanted.test(entry) && System.nanoTime() < deadline)
        {
            Thread.sleep(50);
            entry = neighbour(address);
        }
        return entry;
    }

    private static boolean learned(final String entry)
    {
        return entry.contains("lladdr " + LB_MAC) && (entry.contains("REACHABLE") || entry.contains("STALE") ||
            entry.contains("DELAY") || entry.contains("PROBE"));
    }

    @Test
    void shouldRefuseABadInterface()
    {
        assertThatThrownBy(() -> new VipAnnouncer.Interface("x", 0, LB_MAC_VALUE, null, null))
            .hasMessageContaining("ifindex 0");
        assertThatThrownBy(() -> new VipAnnouncer.Interface("x", 1, 0x0100_0000_0001L, null, null))
            .hasMessageContaining("not a 48-bit unicast address");
        assertThatThrownBy(() -> new VipAnnouncer.Interface("x", 1, LB_MAC_VALUE, IpAddress.parse("::1"), null))
            .hasMessageContaining("wrong family");
        assertThat(VipAnnouncer.Interface.macOf(Netns.macBytes(LB_MAC))).isEqualTo(LB_MAC_VALUE);
        assertThatThrownBy(() -> VipAnnouncer.Interface.macOf(new byte[5])).hasMessageContaining("6 bytes, not 5");
    }

    @Test
    void shouldAnswerArpAndSolicitationsForTheVipsOnlyWhilePolled() throws InterruptedException
    {
        startPolling();
        sendDatagramFromPeer("10.9.9.8");
        sendDatagramFromPeer("2001:db8:9::8");
        sendDatagramFromPeer(VIP4);
        sendDatagramFromPeer(VIP6);

        assertThat(awaitNeighbour(VIP4, VipAnnouncerTest::learned)).satisfies(e -> assertThat(learned(e)).isTrue());
        assertThat(awaitNeighbour(VIP6, VipAnnouncerTest::learned)).satisfies(e -> assertThat(learned(e)).isTrue());
        // The peer asks three times over three seconds, then gives up: the entry ends FAILED, never with a MAC.
        final Predicate<String> failed = entry -> entry.contains("FAILED") || entry.isEmpty();
        assertThat(awaitNeighbour("10.9.9.8", failed)).contains("FAILED").doesNotContain("lladdr");
        assertThat(awaitNeighbour("2001:db8:9::8", failed)).contains("FAILED").doesNotContain("lladdr");
        stopPolling();

        assertThat(announcer.arpAnswers()).isPositive();
        assertThat(announcer.solicitationAnswers()).isPositive();
        // The requests for .8 reached the announcer, which left them: at least one of each family.
        assertThat(announcer.ignored()).isGreaterThanOrEqualTo(2);
        assertThat(announcer.sendFailures()).isZero();
    }

    @Test
    void shouldLetThePeerLearnAnAnnouncedVipWithoutAsking() throws InterruptedException
    {
        // Linux takes a gratuitous ARP for an address it has no entry for only with arp_accept
        // (arp_process), and an unsolicited advertisement only on a forwarding interface with
        // accept_untracked_na (ndisc_recv_na, as RFC 9131 lets routers): the peer stands for such a router.
        Netns.sysctl(peer, "net.ipv4.conf.va1.arp_accept", "1", "net.ipv6.conf.va1.forwarding", "1",
            "net.ipv6.conf.va1.accept_untracked_na", "1");
        assertThat(neighbour(VIP4)).isEmpty();
        assertThat(neighbour(VIP6)).isEmpty();

        announcer.announce(VIPS);

        assertThat(awaitNeighbour(VIP4, VipAnnouncerTest::learned)).contains("lladdr " + LB_MAC, "STALE");
        assertThat(awaitNeighbour(VIP6, VipAnnouncerTest::learned)).contains("lladdr " + LB_MAC, "STALE");
        assertThat(announcer.announcements()).isEqualTo(2);
        assertThat(announcer.sendFailures()).isZero();
        assertThat(announcer.arpAnswers() + announcer.solicitationAnswers()).isZero();
    }

    @Test
    void shouldMoveThePeersExistingEntriesToTheAnnouncerWithoutAnySysctl() throws InterruptedException
    {
        // The fail-over case: the peer still has the VIP at the previous director's MAC.
        Netns.ipBatch(peer, List.of("neigh replace " + VIP4 + " lladdr 02:00:00:00:00:99 dev va1 nud stale",
            "neigh replace " + VIP6 + " lladdr 02:00:00:00:00:99 dev va1 nud stale"));

        announcer.announce(VIPS);

        assertThat(awaitNeighbour(VIP4, VipAnnouncerTest::learned)).contains("lladdr " + LB_MAC);
        assertThat(awaitNeighbour(VIP6, VipAnnouncerTest::learned)).contains("lladdr " + LB_MAC);
    }

    @Test
    void shouldAnswerDuplicateAddressDetectionToAllNodesAndAnArpProbeToItsSender() throws InterruptedException
    {
        try (RawPacketSocket ipv6 = RawPacketSocket.openIncoming(peer, "va1", AfPacket.ETH_P_IPV6);
             RawPacketSocket arp = RawPacketSocket.openIncoming(peer, "va1", AfPacket.ETH_P_ARP))
        {
            startPolling();
            ipv6.send(duplicateAddressDetection(VIP6));
            arp.send(arpProbe(VIP4));

            final byte[] advertisement = ipv6.await(frame -> fromLb(frame) && frame.length >= 54 + 24 &&
                (frame[54] & 0xff) == 136, WAIT);
            assertThat(advertisement).isNotNull();
            final ByteBuffer na = direct(advertisement);
            final long base = Frames.addressOf(na);
            assertThat(advertisement).hasSize(14 + 40 + 32);
            assertThat(mac(base)).isEqualTo(0x3333_0000_0001L);
            assertThat(mac(base + 6)).isEqualTo(LB_MAC_VALUE);
            assertThat(Frames.u8(base + 14 + 7)).as("hop limit").isEqualTo(255);
            assertThat(address(base + 14 + 8)).isEqualTo(IpAddress.parse(VIP6));
            assertThat(address(base + 14 + 24)).isEqualTo(IpAddress.parse("ff02::1"));
            assertThat(Checksums.isTransportChecksumValidV6(base + 14 + 8, 58, base + 54, 32)).isTrue();
            assertThat(Frames.i32(base + 54 + 4)).as("flags: override only").isEqualTo(0x2000_0000);
            assertThat(address(base + 54 + 8)).isEqualTo(IpAddress.parse(VIP6));
            assertThat(Frames.u16(base + 54 + 24)).as("target link-layer option, 8 bytes").isEqualTo(0x0201);
            assertThat(mac(base + 54 + 26)).isEqualTo(LB_MAC_VALUE);

            final byte[] reply = arp.await(frame -> fromLb(frame) && frame.length >= 42 && frame[21] == 2, WAIT);
            assertThat(reply).isNotNull();
            final ByteBuffer arpReply = direct(reply);
            final long r = Frames.addressOf(arpReply);
            assertThat(mac(r)).as("to the prober").isEqualTo(0x0200_009a_0002L);
            assertThat(mac(r + 6)).isEqualTo(LB_MAC_VALUE);
            assertThat(mac(r + 14 + 8)).as("sender MAC").isEqualTo(LB_MAC_VALUE);
            assertThat(Frames.i32(r + 14 + 14)).as("sender IP").isEqualTo(IpAddress.parse(VIP4).v4());
            assertThat(mac(r + 14 + 18)).as("target MAC").isEqualTo(0x0200_009a_0002L);
            assertThat(Frames.i32(r + 14 + 24)).as("target IP: the probe's 0.0.0.0").isZero();
        }
    }

    /** @return whether the director sent it (the sockets queue only what arrives). */
    private static boolean fromLb(final byte[] frame)
    {
        return frame.length >= 12 && Arrays.equals(frame, 6, 12, Netns.macBytes(LB_MAC), 0, 6);
    }

    @Test
    void shouldLeaveARequestFromAVlanItHasNoDeviceFor() throws InterruptedException
    {
        try (RawPacketSocket arp = RawPacketSocket.openIncoming(peer, "va1", AfPacket.ETH_P_ARP))
        {
            startPolling();
            final byte[] untagged = arpProbe(VIP4);
            final byte[] tagged = new byte[untagged.length + 4];
            System.arraycopy(untagged, 0, tagged, 0, 12);
            tagged[12] = (byte)0x81;
            tagged[15] = 100;
            System.arraycopy(untagged, 12, tagged, 16, untagged.length - 12);
            arp.send(tagged);
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (announcer.ignored() == 0 && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            // The kernel takes the tag off and hands the frame on as PACKET_OTHERHOST: an untagged answer to it
            // would go to the wrong VLAN.
            Thread.sleep(100);
            stopPolling();
            // At least the tagged request; the kernel's own frames on a new link (its router solicitations, say)
            // may be ignored too, in a full run's timing.
            assertThat(announcer.ignored()).isPositive();
            assertThat(announcer.arpAnswers()).isZero();
        }
    }

    @Test
    void shouldAnnounceOnlyTheVipsThatAppearedSinceTheLastCall()
    {
        final IpAddress third = IpAddress.parse("10.9.9.10");
        assertThat(announcer.announceAppeared(VIPS)).isEqualTo(2);
        assertThat(announcer.announceAppeared(VIPS)).isZero();
        assertThat(announcer.announceAppeared(Set.of(third))).isEqualTo(1);
        assertThat(announcer.announceAppeared(VIPS)).as("appeared again after going away").isEqualTo(2);
        assertThat(announcer.announcements()).isEqualTo(5);
    }

    /** A DAD probe (RFC 4862): from ::, to the target's solicited-node group, no source link-layer option. */
    private static byte[] duplicateAddressDetection(final String target)
    {
        final IpAddress vip = IpAddress.parse(target);
        final ByteBuffer frame = ByteBuffer.allocateDirect(14 + 40 + 24);
        final long base = Frames.addressOf(frame);
        Frames.putU16(base, 0x3333);
        Frames.putI32(base + 2, 0xff00_0000 | (int)vip.low() & 0xFF_FFFF);
        putMac(base + 6, 0x0200_009a_0002L);
        Frames.putU16(base + 12, 0x86DD);
        Frames.putI32(base + 14, 6 << 28);
        Frames.putU16(base + 14 + 4, 24);
        Frames.putU8(base + 14 + 6, 58);
        Frames.putU8(base + 14 + 7, 255);
        Frames.putI64(base + 14 + 24, 0xFF02_0000_0000_0000L);
        Frames.putI64(base + 14 + 32, 0x0000_0001_FF00_0000L | vip.low() & 0xFF_FFFF);
        Frames.putU8(base + 54, 135);
        Frames.putI64(base + 54 + 8, vip.high());
        Frames.putI64(base + 54 + 16, vip.low());
        Frames.putU16(base + 54 + 2, Checksums.transportChecksumV6(base + 14 + 8, 58, base + 54, 24));
        return Frames.read(base, frame.capacity());
    }

    /** An ARP probe (RFC 5227): a broadcast request for the address from 0.0.0.0. */
    private static byte[] arpProbe(final String target)
    {
        final ByteBuffer frame = ByteBuffer.allocateDirect(42);
        final long base = Frames.addressOf(frame);
        putMac(base, 0xFFFF_FFFF_FFFFL);
        putMac(base + 6, 0x0200_009a_0002L);
        Frames.putU16(base + 12, 0x0806);
        Frames.putU16(base + 14, 1);
        Frames.putU16(base + 16, 0x0800);
        Frames.putU8(base + 18, 6);
        Frames.putU8(base + 19, 4);
        Frames.putU16(base + 20, 1);
        putMac(base + 22, 0x0200_009a_0002L);
        Frames.putI32(base + 38, IpAddress.parse(target).v4());
        return Frames.read(base, frame.capacity());
    }

    private static ByteBuffer direct(final byte[] bytes)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length);
        buffer.put(bytes).flip();
        return buffer;
    }

    private static long mac(final long address)
    {
        return (long)Frames.u16(address) << 32 | Frames.i32(address + 2) & 0xFFFF_FFFFL;
    }

    private static void putMac(final long address, final long mac)
    {
        Frames.putU16(address, (int)(mac >>> 32) & 0xFFFF);
        Frames.putI32(address + 2, (int)mac);
    }

    private static IpAddress address(final long address)
    {
        return IpAddress.ofV6(Frames.i64(address), Frames.i64(address + 8));
    }
}
