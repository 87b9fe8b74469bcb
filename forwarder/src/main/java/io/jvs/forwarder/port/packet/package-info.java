/**
 * The AF_PACKET port: a TPACKET_V3 receive ring and a PACKET_TX_RING, for hosts and NICs where AF_XDP is not
 * available. Open one with {@link io.jvs.forwarder.port.packet.AfPacketPort#open} or, for an L2 forwarder, a
 * pair with {@link io.jvs.forwarder.port.packet.AfPacketForwardingPair#open}.
 *
 * <h2>AF_PACKET semantics</h2>
 * <ul>
 *   <li><b>A copy, not the packet.</b> An AF_PACKET socket receives a copy of each frame; the kernel still
 *   processes the original through its own stack. If IP forwarding is on in that network namespace the kernel
 *   forwards a second copy, so a host running jvs over AF_PACKET keeps {@code net.ipv4.ip_forward=0} (and
 *   IPv6 forwarding off) on the interfaces jvs serves, and should firewall them so the stack drops what it
 *   cannot use. The stack's work is also paid for on the receiving CPU: on a 2-vCPU VM the rate a generator
 *   could offer fell by a quarter (perf/RESULTS.md, issue 4's wire benchmark). AF_XDP with XDP_REDIRECT takes the
 *   packet instead.
 *   <br>The port can take the packet too ({@link io.jvs.forwarder.port.packet.AfPacketSteal}): the receiving port
 *   attaches a program to its device's tcx ingress hook through a BPF link (Linux 6.6 and later; detached when the
 *   port closes or the process dies). {@code __netif_receive_skb_core} delivers to the packet taps (our socket,
 *   bound to every protocol, and tcpdump) before tcx ingress, so the socket keeps its copy and the stack never
 *   sees the original of a dropped frame. With {@code JVS_TRAFFIC}, the daemon's mode, the program
 *   ({@code TcPrograms.stealJvsTraffic}) drops exactly the frames the AF_XDP port's XDP program would redirect,
 *   over the same VIP, real-server and local-address maps, given at open ({@link
 *   io.jvs.forwarder.port.packet.AfPacketPrograms}): ARP, neighbour discovery, ping to a VIP and everything for
 *   the box itself still reach the kernel, while the kernel, holding the VIPs on {@code lo}, no longer answers a
 *   client's SYN with a reset before jvs's rewritten SYN reaches the server. With {@code ALL}
 *   ({@code withStealing(true)}, {@code bench l2fwd --steal}) every frame is dropped: that raised AF_PACKET
 *   forwarding by about half on the 2-vCPU VM (perf/RESULTS.md, "Second run"; measured first with the same drop
 *   done by nftables at the netdev ingress hook, which also runs after the taps), but ARP, SSH and routing
 *   protocols on the device are then
 *   jvs's problem, so never steal everything on a shared interface. Each receiving port of a fanout group
 *   attaches its own program; the kernel gets frames back when the last one closes.</li>
 *   <li><b>Our transmissions and taps.</b> The transmit ring uses PACKET_QDISC_BYPASS by default: frames go
 *   straight to the driver, which is faster, but they skip every packet tap, so {@code tcpdump} on the egress
 *   interface does not show what jvs sends. Turn it off ({@code AfPacketSettings.withQdiscBypass(false)}) to
 *   debug with tcpdump; frames then take the qdisc path.</li>
 *   <li><b>Our own frames are not received again.</b> The receive socket sets PACKET_IGNORE_OUTGOING, so frames
 *   this host transmits on the interface (ours on the qdisc path, or anyone else's) are not delivered to it.</li>
 *   <li><b>Partial checksums.</b> A sender on the same host (a veth peer with tx-checksumming on, the default)
 *   may leave a TCP or UDP checksum for "hardware" to finish; the ring marks such a frame
 *   TP_STATUS_CSUMNOTREADY, and the port completes the checksum in software before the pipeline sees it
 *   ({@code checksumsCompleted}).</li>
 *   <li><b>VLAN tags.</b> Devices with RX VLAN offload (veth included) take the 802.1Q/802.1ad tag off a frame and
 *   the ring reports it beside the frame (TP_STATUS_VLAN_VALID); the port puts it back in the frame, in its
 *   headroom, so frames leave tagged as they arrived ({@code vlanTagsRestored}).</li>
 *   <li><b>Several workers.</b> Workers on one interface each open a port in the same PACKET_FANOUT group. The
 *   hash mode keeps a flow on one socket, but not the two directions of a NAT connection; the daemon uses mode
 *   PACKET_FANOUT_EBPF with {@code FanoutPrograms.clientDispatch}, which sends every frame to the worker of its
 *   client by {@code ClientDispatch}'s rule (the source of a frame to a VIP, the destination of a NAT reply), so
 *   both directions meet in one worker's tables. The group's sockets are numbered in the order they joined: the
 *   workers open their ports one after another, worker 0 first.</li>
 *   <li><b>Costs.</b> Every transmitted frame is copied into the TX ring ({@code txCopied == txFrames}) and each
 *   burst that queued frames costs one {@code sendto}. Received frames are used in place in the ring.
 *   <br><b>Linear transmit</b> (the default, {@code AfPacketSettings.withLinearTransmit}): the transmit socket
 *   has PACKET_VNET_HDR and each slot starts with a virtio_net_hdr whose {@code hdr_len} is the whole frame, so
 *   {@code tpacket_snd} copies the frame into the skb's own buffer. Without it the kernel copies only the
 *   Ethernet header and hangs the rest of the slot on the skb as a page fragment marked zero-copy; a device
 *   that hands the skb back to the stack (veth, or a bridge to a local socket) must then allocate a page and
 *   copy the frame again ({@code skb_copy_ubufs}, seen in {@code perf} on the forwarding core), and the page is
 *   freed later on the sender's CPU. On the 2-vCPU VM's wire benchmark linear transmit forwarded about a quarter
 *   more in the same runs (perf/RESULTS.md, "Fourth run"). A NIC would DMA the
 *   fragment in place, so there the copy costs a little for large frames; {@code withLinearTransmit(false)}
 *   restores the kernel's default. Forwarding
 *   60-byte frames between veths on a 2-vCPU VM ({@code ForwardingRateProbe} in the tests), most of the
 *   forwarder's CPU per frame is the kernel's transmit path, and this port matched hand-written C transmitting
 *   the same way (perf/RESULTS.md, "AF_PACKET forwarding rate probe"). V3 and V2 transmit rings cost the same
 *   within noise there; V3 is the default.</li>
 * </ul>
 */
package io.jvs.forwarder.port.packet;
