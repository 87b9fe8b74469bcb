package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Map;

/**
 * A device of a test topology, with what a daemon's config or a hand-built frame needs of it.
 *
 * @param namespace where it is.
 * @param name      its name there.
 * @param ifindex   its index there.
 * @param mac       its MAC address, as {@code ip -j link} prints it.
 * @param ipv4      its (first) IPv4 address.
 * @param ipv6      its (first) IPv6 address, or null when the topology has no IPv6.
 */
public record NetInterface(String namespace, String name, int ifindex, String mac, Inet4Address ipv4,
                           Inet6Address ipv6)
{
    /** @return the MAC address's six bytes. */
    public byte[] macBytes()
    {
        return Netns.macBytes(mac);
    }

    /** @return its address of the family of {@code like}. */
    public InetAddress address(final InetAddress like)
    {
        return like instanceof Inet4Address ? ipv4 : ipv6;
    }

    /**
     * Reads the device's index and MAC address from the namespace.
     *
     * @throws IllegalStateException when there is no such device.
     */
    public static NetInterface read(final String namespace, final String device, final Inet4Address ipv4,
        final Inet6Address ipv6)
    {
        final Map<String, Netns.Link> links = Netns.links(namespace);
        final Netns.Link link = links.get(device);
        if (link == null)
        {
            throw new IllegalStateException("no device " + device + " in " + namespace + ": " + links.keySet());
        }
        return new NetInterface(namespace, device, link.ifindex(), link.mac(), ipv4, ipv6);
    }
}
