package io.jvs.forwarder.port.packet;

import io.jvs.nativebindings.testing.TestNetwork;

/**
 * gen:g0 &lt;-&gt; fwd:fA and fwd:fB &lt;-&gt; sink:s0, all up, IPv6 off (so the kernel sends nothing of its own
 * onto the links) and IP forwarding off in fwd (the default: so the stack there, which sees every original
 * frame too, forwards no duplicates). Closing removes the namespaces.
 */
final class ForwardingNetwork implements AutoCloseable
{
    final TestNetwork network;
    final String gen;
    final String fwd;
    final String sink;

    ForwardingNetwork(final String tag)
    {
        network = TestNetwork.create(tag);
        try
        {
            gen = network.namespace("gen");
            fwd = network.namespace("fwd");
            sink = network.namespace("sink");
            for (final String namespace : new String[] {gen, fwd, sink})
            {
                network.inNamespace(namespace, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                    "net.ipv6.conf.default.disable_ipv6=1");
            }
            network.inNamespace(fwd, "sysctl", "-q", "-w", "net.ipv4.ip_forward=0");
            network.veth(gen, "g0", fwd, "fA");
            network.veth(fwd, "fB", sink, "s0");
        }
        catch (final RuntimeException | Error ex)
        {
            network.close();
            throw ex;
        }
    }

    @Override
    public void close()
    {
        network.close();
    }
}
