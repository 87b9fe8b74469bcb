package io.jvs.forwarder.config;

/**
 * Firewall marks as operators write them, for iptables's MARK and ipvsadm's {@code -f}: 1..4294967295 in decimal, or
 * 0x1..0xffffffff. The config's {@code mark} statement and replay's {@code --fwmark} read them alike.
 */
public final class FirewallMarks
{
    private FirewallMarks()
    {
    }

    /**
     * @param what what the mark is given to, for the message ({@code mark}, {@code --fwmark}).
     * @param text the mark as written.
     * @return the mark, its 32 bits in an int.
     * @throws IllegalArgumentException beginning with {@code what}, when it is not a mark.
     */
    public static int parse(final String what, final String text)
    {
        try
        {
            final boolean hex = text.startsWith("0x") || text.startsWith("0X");
            final long value = Long.parseLong(hex ? text.substring(2) : text, hex ? 16 : 10);
            if (value >= 1 && value <= 0xFFFF_FFFFL)
            {
                return (int)value;
            }
        }
        catch (final NumberFormatException ex)
        {
            // refused below
        }
        throw new IllegalArgumentException(what + ": the mark must be 1..4294967295 (or 0x1..0xffffffff), not \"" +
            text + "\"");
    }
}
