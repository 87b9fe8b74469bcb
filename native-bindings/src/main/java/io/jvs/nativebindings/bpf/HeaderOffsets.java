package io.jvs.nativebindings.bpf;

/**
 * Where the fields the programs read stand in the headers they parse (RFC 791, RFC 8200, IEEE 802.1Q), shared by
 * the program generators of this package (native-bindings does not see core's packet classes).
 */
final class HeaderOffsets
{
    static final int VLAN_TAG = 4;
    /** The EtherType behind a tag, from the tag's start. */
    static final int VLAN_INNER_ETHERTYPE = 2;
    static final int IPV4_HEADER = 20;
    static final int IPV4_FRAGMENT = 6;
    static final int IPV4_PROTOCOL = 9;
    static final int IPV4_SOURCE = 12;
    static final int IPV4_DESTINATION = 16;
    static final int IPV6_HEADER = 40;
    static final int IPV6_NEXT_HEADER = 6;
    static final int IPV6_SOURCE = 8;
    static final int IPV6_DESTINATION = 24;

    private HeaderOffsets()
    {
    }
}
