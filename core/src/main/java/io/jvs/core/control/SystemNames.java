package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The system's names, as ipvsadm's C library calls find them: service names from a services file
 * (getservbyname, getservbyport: the first entry of a port and protocol names it; a name or alias gives its port),
 * host names through the JDK's resolver, which asks the system's (gethostbyaddr, gethostbyname; IPv4 only for
 * names, as gethostbyname).
 */
public final class SystemNames implements Names
{
    private final Map<String, Integer> ports = new HashMap<>();
    private final Map<String, String> names = new HashMap<>();

    /**
     * @param servicesFile a file in services(5) format, usually /etc/services; a missing file means no names.
     * @throws IOException when it exists but cannot be read.
     */
    public SystemNames(final Path servicesFile) throws IOException
    {
        if (!Files.exists(servicesFile))
        {
            return;
        }
        final List<String> lines = Files.readAllLines(servicesFile, StandardCharsets.ISO_8859_1);
        for (final String raw : lines)
        {
            final int hash = raw.indexOf('#');
            final String[] fields = (hash >= 0 ? raw.substring(0, hash) : raw).trim().split("\\s+");
            if (fields.length < 2 || fields[0].isEmpty())
            {
                continue;
            }
            final int slash = fields[1].indexOf('/');
            if (slash < 0)
            {
                continue;
            }
            final int port;
            try
            {
                port = Integer.parseInt(fields[1].substring(0, slash));
            }
            catch (final NumberFormatException ex)
            {
                continue;
            }
            final String protocol = fields[1].substring(slash + 1).toLowerCase(Locale.ROOT);
            names.putIfAbsent(port + "/" + protocol, fields[0]);
            for (int i = 0; i < fields.length; i++)
            {
                if (i != 1)
                {
                    ports.putIfAbsent(fields[i] + "/" + protocol, port);
                }
            }
        }
    }

    @Override
    public String serviceName(final int port, final Protocol protocol)
    {
        if (protocol == null)
        {
            return null;
        }
        return names.get(port + "/" + protocol.name().toLowerCase(Locale.ROOT));
    }

    @Override
    public int servicePort(final String name, final Protocol protocol)
    {
        if (protocol == null)
        {
            // service_to_port knows names only for TCP, UDP and SCTP: a -r before any -t has protocol 0.
            return -1;
        }
        return ports.getOrDefault(name + "/" + protocol.name().toLowerCase(Locale.ROOT), -1);
    }

    @Override
    public String hostName(final IpAddress address)
    {
        final InetAddress inet = address.toInetAddress();
        final String name = inet.getHostName();
        return name.equals(inet.getHostAddress()) ? null : name;
    }

    @Override
    public IpAddress hostAddress(final String name)
    {
        // The JDK's resolver takes what gethostbyname does not: an empty name as the loopback address, and an
        // IPv6 literal (bracketed or not) such as ::ffff:1.2.3.4 as its IPv4 address. ipvsadm refuses both
        // ("-t :80", "-t ::ffff:1.2.3.4:80"), and no host name has a colon or a bracket in it.
        if (name.isEmpty() || name.indexOf(':') >= 0 || name.indexOf('[') >= 0)
        {
            return null;
        }
        try
        {
            for (final InetAddress address : InetAddress.getAllByName(name))
            {
                if (address instanceof Inet4Address)
                {
                    return IpAddress.of(address);
                }
            }
        }
        catch (final UnknownHostException ex)
        {
            return null;
        }
        return null;
    }
}
