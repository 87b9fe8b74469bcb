package io.jvs.core.net;

/**
 * The layer-4 protocols a virtual service can carry, with their IP protocol numbers and the
 * ipvsadm option that names a service of that protocol.
 */
public enum Protocol
{
    TCP(6, "-t"),
    UDP(17, "-u"),
    SCTP(132, "--sctp-service");

    private final int number;
    private final String ipvsadmOption;

    Protocol(final int number, final String ipvsadmOption)
    {
        this.number = number;
        this.ipvsadmOption = ipvsadmOption;
    }

    /**
     * @return the IP protocol number (6, 17 or 132).
     */
    public int number()
    {
        return number;
    }

    /**
     * @return the option ipvsadm prints before a service of this protocol, e.g. {@code -t}.
     */
    public String ipvsadmOption()
    {
        return ipvsadmOption;
    }

    /**
     * @param number an IP protocol number.
     * @return the protocol, or null when jvs does not balance it.
     */
    public static Protocol ofNumber(final int number)
    {
        return switch (number)
        {
            case 6 -> TCP;
            case 17 -> UDP;
            case 132 -> SCTP;
            default -> null;
        };
    }

    /**
     * @param name "tcp", "udp" or "sctp", in any case.
     * @return the protocol, or null when the name is not one of them.
     */
    public static Protocol ofName(final String name)
    {
        return switch (name.toLowerCase(java.util.Locale.ROOT))
        {
            case "tcp" -> TCP;
            case "udp" -> UDP;
            case "sctp" -> SCTP;
            default -> null;
        };
    }
}
