/**
 * The harness of the daemon's system tests, independent of the daemon and proven with the kernel standing in
 * for it:
 * <ul>
 *   <li>{@link io.jvs.forwarder.daemon.it.LbTopology}: the IPVS selftest's client / director / real servers
 *       grown to N servers, for NAT, DR and TUN, two-arm or one-arm, IPv4 and IPv6;</li>
 *   <li>{@link io.jvs.forwarder.daemon.it.FirewallSandwich}: outside, jvs A, a row of firewalls that count
 *       per flow, jvs B, inside servers, with a check that both directions of every flow crossed the same
 *       firewall;</li>
 *   <li>{@link io.jvs.forwarder.daemon.it.TunnelDecapsulator}: the real servers' IP-in-IP decapsulation as
 *       an XDP program (this kernel has no ipip module);</li>
 *   <li>traffic tools that run on threads inside the namespaces:
 *       {@link io.jvs.forwarder.daemon.it.TcpDigestServer} / {@link io.jvs.forwarder.daemon.it.TcpDigestClient}
 *       (seeded bytes, SHA-256 checked at both ends, the server's identity back) and
 *       {@link io.jvs.forwarder.daemon.it.UdpDigestServer} / {@link io.jvs.forwarder.daemon.it.UdpDigestClient};</li>
 *   <li>{@link io.jvs.forwarder.daemon.it.FlowCounter}, {@link io.jvs.nativebindings.testing.RawPacketSocket},
 *       {@link io.jvs.forwarder.daemon.it.TestPackets} and {@link io.jvs.forwarder.daemon.it.Netns} for
 *       looking at and making packets and namespaces.</li>
 * </ul>
 * Everything a test makes (namespaces, XDP programs, sockets, threads) goes when the topology closes; the
 * tests need root, as CI has.
 */
package io.jvs.forwarder.daemon.it;
