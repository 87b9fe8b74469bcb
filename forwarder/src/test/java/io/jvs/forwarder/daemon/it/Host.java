package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;

/**
 * A server of a test topology: a namespace with one device on the servers' LAN.
 *
 * @param index     1 to N, in the order of the bridge's ports and of the addresses.
 * @param name      {@code rs1}, {@code in1}...: the identity its servers answer with.
 * @param namespace its namespace.
 * @param nic       its one device, {@code eth0}.
 */
public record Host(int index, String name, String namespace, NetInterface nic)
{
    public Inet4Address ipv4()
    {
        return nic.ipv4();
    }

    public Inet6Address ipv6()
    {
        return nic.ipv6();
    }
}
