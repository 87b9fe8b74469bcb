package io.jvs.forwarder.control.netlink;

/**
 * {@code IPVS_CMD_GET_INFO}'s answer: what the header line of {@code ipvsadm -L} shows.
 *
 * @param version             {@code IP_VS_VERSION_CODE}-style: major, minor, patch in the bytes 2, 1, 0.
 * @param connectionTableSize the connection hash table's size ("size=4096").
 */
public record IpvsInfo(int version, int connectionTableSize)
{
}
