package io.jvs.forwarder.port.xdp;

import io.jvs.nativebindings.testing.TestNetwork;

/**
 * The three namespaces of the forwarding tests, wired as a router's two legs:
 * <pre>
 *   gen: g0  &lt;-veth-&gt;  fA :fwd: fB  &lt;-veth-&gt;  s0 :sink
 * </pre>
 * all up, with IPv6 off so that no neighbour discovery or MLD frame joins the traffic a test counts.
 * Closing removes the namespaces (and so the veths).
 */
final class ForwardingNetwork implements AutoCloseable
{
    static final String GENERATOR_DEVICE = "g0";
    static final String RECEIVE_DEVICE = "fA";
    static final String TRANSMIT_DEVICE = "fB";
    static final String SINK_DEVICE = "s0";
    static final byte[] SINK_MAC = {0x02, 0, 0, 0, 0, 0x02};
    static final byte[] TRANSMIT_MAC = {0x02, 0, 0, 0, 0, (byte)0xB1};
    static final byte[] RECEIVE_MAC = {0x02, 0, 0, 0, 0, (byte)0xA1};

    final TestNetwork network;
    final String generator;
    final String forwarder;
    final String sink;

    ForwardingNetwork(final String tag)
    {
        this(tag, 1);
    }

    /**
     * @param queues receive and transmit queues of every veth end (a veth made without them has one real queue).
     */
    ForwardingNetwork(final String tag, final int queues)
    {
        network = TestNetwork.create(tag);
        try
        {
            generator = withoutIpv6(network.namespace("gen"));
            forwarder = withoutIpv6(network.namespace("fwd"));
            sink = withoutIpv6(network.namespace("sink"));
            veth(generator, GENERATOR_DEVICE, forwarder, RECEIVE_DEVICE, queues);
            veth(forwarder, TRANSMIT_DEVICE, sink, SINK_DEVICE, queues);
            network.inNamespace(sink, "ip", "link", "set", SINK_DEVICE, "address", mac(SINK_MAC));
            network.inNamespace(forwarder, "ip", "link", "set", TRANSMIT_DEVICE, "address", mac(TRANSMIT_MAC));
            network.inNamespace(forwarder, "ip", "link", "set", RECEIVE_DEVICE, "address", mac(RECEIVE_MAC));
        }
        catch (final RuntimeException ex)
        {
            network.close();
            throw ex;
        }
    }

    private void veth(final String namespaceA, final String nameA, final String namespaceB, final String nameB,
        final int queues)
    {
        final String count = Integer.toString(queues);
        network.inNamespace(namespaceA, "ip", "link", "add", nameA, "numtxqueues", count, "numrxqueues", count,
            "type", "veth", "peer", "name", nameB, "numtxqueues", count, "numrxqueues", count, "netns", namespaceB);
        network.inNamespace(namespaceA, "ip", "link", "set", nameA, "up");
        network.inNamespace(namespaceB, "ip", "link", "set", nameB, "up");
    }

    private String withoutIpv6(final String namespace)
    {
        network.inNamespace(namespace, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
        network.inNamespace(namespace, "sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1");
        return namespace;
    }

    /** @return what {@code ip -d link} says about the receive device. */
    String receiveDeviceDetails()
    {
        return network.inNamespace(forwarder, "ip", "-d", "link", "show", "dev", RECEIVE_DEVICE);
    }

    static String mac(final byte[] mac)
    {
        final StringBuilder text = new StringBuilder();
        for (final byte b : mac)
        {
            text.append(text.isEmpty() ? "" : ":").append(String.format("%02x", b & 0xFF));
        }
        return text.toString();
    }

    @Override
    public void close()
    {
        network.close();
    }

    /**
     * An IPv4 UDP frame to the receive device's MAC, from 10.77.1.1 to 10.77.2.{@code destinationLastByte}.
     *
     * @param length the frame's length, 64 and up.
     */
    static byte[] udpFrame(final int length, final int destinationLastByte, final int sourcePort,
        final int destinationPort)
    {
        final byte[] frame = new byte[length];
        System.arraycopy(RECEIVE_MAC, 0, frame, 0, 6);
        frame[6] = 0x02;
        frame[11] = 0x01;
        frame[12] = 0x08;
        frame[14] = 0x45;
        frame[17] = (byte)(length - 14);
        frame[22] = 64;
        frame[23] = 17;
        final byte[] addresses = {10, 77, 1, 1, 10, 77, 2, (byte)destinationLastByte};
        System.arraycopy(addresses, 0, frame, 26, addresses.length);
        frame[34] = (byte)(sourcePort >>> 8);
        frame[35] = (byte)sourcePort;
        frame[36] = (byte)(destinationPort >>> 8);
        frame[37] = (byte)destinationPort;
        frame[39] = (byte)(length - 34);
        return frame;
    }
}
