package io.jvs.tools.simulate;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;

/**
 * One new connection of a flows file: {@code PROTO SRC_IP:SRC_PORT DST_IP:DST_PORT [fwmark=N]}.
 *
 * @param protocol        tcp, udp or sctp.
 * @param source          the client's address.
 * @param sourcePort      the client's port.
 * @param destination     the address the client connects to.
 * @param destinationPort the port it connects to.
 * @param firewallMark    the mark a firewall rule would have set, 0 for none.
 */
record FlowSpec(
    Protocol protocol, IpAddress source, int sourcePort, IpAddress destination, int destinationPort, int firewallMark)
{
    /**
     * @param line the text, without comment.
     * @return the flow.
     * @throws IllegalArgumentException naming what is wrong.
     */
    static FlowSpec parse(final String line)
    {
        final String[] words = line.trim().split("\\s+");
        if (words.length < 3 || words.length > 4)
        {
            throw new IllegalArgumentException(
                "expected PROTO SRC_IP:SRC_PORT DST_IP:DST_PORT [fwmark=N], got `" + line.trim() + "'");
        }
        final Protocol protocol = Protocol.ofName(words[0]);
        if (protocol == null)
        {
            throw new IllegalArgumentException("unknown protocol `" + words[0] + "' (tcp, udp or sctp)");
        }
        final IpAddress source = address(words[1], "source");
        final int sourcePort = port(words[1], "source");
        final IpAddress destination = address(words[2], "destination");
        final int destinationPort = port(words[2], "destination");
        if (source.isV6() != destination.isV6())
        {
            throw new IllegalArgumentException("source and destination are of different address families");
        }
        int mark = 0;
        if (words.length == 4)
        {
            if (!words[3].startsWith("fwmark="))
            {
                throw new IllegalArgumentException("unexpected `" + words[3] + "' (only fwmark=N may follow)");
            }
            final String value = words[3].substring("fwmark=".length());
            try
            {
                final long parsed = Long.parseLong(value);
                if (parsed < 1 || parsed > 0xFFFF_FFFFL)
                {
                    throw new NumberFormatException();
                }
                mark = (int)parsed;
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("invalid fwmark `" + value + "' (1..4294967295)");
            }
        }
        return new FlowSpec(protocol, source, sourcePort, destination, destinationPort, mark);
    }

    private static IpAddress address(final String endpoint, final String role)
    {
        final int colon = endpoint.lastIndexOf(':');
        if (colon <= 0)
        {
            throw new IllegalArgumentException(role + " `" + endpoint + "' needs ADDRESS:PORT ([v6]:PORT for IPv6)");
        }
        final String host = endpoint.substring(0, colon);
        if (host.indexOf(':') >= 0 && !host.startsWith("["))
        {
            throw new IllegalArgumentException(role + " `" + endpoint + "': write IPv6 addresses as [ADDRESS]:PORT");
        }
        try
        {
            return IpAddress.parse(host);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(role + " address: " + ex.getMessage());
        }
    }

    private static int port(final String endpoint, final String role)
    {
        final String text = endpoint.substring(endpoint.lastIndexOf(':') + 1);
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(Character::isDigit) ||
            Integer.parseInt(text) > 65535)
        {
            throw new IllegalArgumentException(role + " port `" + text + "' is not 0..65535");
        }
        return Integer.parseInt(text);
    }
}
