package io.jvs.forwarder.daemon.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.jvs.nativebindings.testing.TestNetwork;

/**
 * Small, quick operations on a namespace made by {@link TestNetwork}: {@code ip -n} instead of
 * {@code ip netns exec} (one process, no mount namespace), several {@code ip} commands in one process
 * ({@code ip -batch}), and sysctls written straight to {@code /proc/sys} from a thread that joined the
 * namespace (proc's net sysctls are those of the writing thread's network namespace).
 */
public final class Netns
{
    private static final Pattern MAC = Pattern.compile("\"address\":\"([0-9a-f]{2}(?::[0-9a-f]{2}){5})\"");
    private static final Pattern IFINDEX = Pattern.compile("\"ifindex\":(\\d+)");
    private static final Pattern MTU = Pattern.compile("\"mtu\":(\\d+)");
    private static final Pattern NAME = Pattern.compile("\"ifname\":\"([^\"]+)\"");

    private Netns()
    {
    }

    /**
     * Runs {@code ip -n namespace args...}; fails with its output if it fails.
     *
     * @return its output.
     */
    public static String ip(final String namespace, final String... args)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "-n", namespace));
        command.addAll(Arrays.asList(args));
        return TestNetwork.run(command.toArray(String[]::new));
    }

    /**
     * Runs several {@code ip} commands (each without the leading {@code ip}, e.g. {@code "addr add 10.0.0.1/24
     * dev lc"}) in one process inside the namespace; stops at, and fails with, the first that fails.
     */
    public static void ipBatch(final String namespace, final List<String> commands)
    {
        batch(namespace, null, commands);
    }

    /**
     * {@link #ipBatch} for IPv6: {@code ip -6 -batch}. (Routes take their family from their addresses, but
     * {@code ip rule} defaults to IPv4, and a batch line cannot carry {@code -6} itself.)
     */
    public static void ipBatch6(final String namespace, final List<String> commands)
    {
        batch(namespace, "-6", commands);
    }

    private static void batch(final String namespace, final String family, final List<String> commands)
    {
        if (commands.isEmpty())
        {
            return;
        }
        try
        {
            final List<String> command = new ArrayList<>(List.of("ip", "-n", namespace));
            if (family != null)
            {
                command.add(family);
            }
            command.addAll(List.of("-batch", "-"));
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (OutputStream input = process.getOutputStream())
            {
                input.write((String.join("\n", commands) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new IllegalStateException("ip -batch in " + namespace + " did not finish within 30 s");
            }
            if (process.exitValue() != 0)
            {
                throw new IllegalStateException("ip -batch in " + namespace + " failed with status " +
                    process.exitValue() + ": " + output + "\ncommands:\n" + String.join("\n", commands));
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot run ip -batch in " + namespace, ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running ip -batch in " + namespace, ex);
        }
    }

    /**
     * Sets sysctls in the namespace, e.g. {@code "net.ipv4.ip_forward", "1"}: name, value, name, value...
     */
    public static void sysctl(final String namespace, final String... namesAndValues)
    {
        if (namesAndValues.length % 2 != 0)
        {
            throw new IllegalArgumentException("sysctl takes names and values in pairs: " +
                Arrays.toString(namesAndValues));
        }
        TestNetwork.callIn(namespace, () ->
        {
            for (int i = 0; i < namesAndValues.length; i += 2)
            {
                final Path path = Path.of("/proc/sys", namesAndValues[i].replace('.', '/'));
                try
                {
                    Files.writeString(path, namesAndValues[i + 1]);
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException("cannot set " + namesAndValues[i] + "=" + namesAndValues[i + 1] +
                        " in " + namespace, ex);
                }
            }
            return null;
        });
    }

    /**
     * @return the sysctl's value in the namespace, trimmed.
     */
    public static String readSysctl(final String namespace, final String name)
    {
        return TestNetwork.callIn(namespace, () -> Files.readString(Path.of("/proc/sys", name.replace('.', '/'))))
            .trim();
    }

    /**
     * @return the device's MAC address as {@code ip -j link} prints it (lower-case, colon-separated).
     */
    public static String mac(final String namespace, final String device)
    {
        return field(namespace, device, MAC, "address");
    }

    /**
     * @return the device's interface index in its namespace.
     */
    public static int ifindex(final String namespace, final String device)
    {
        return Integer.parseInt(field(namespace, device, IFINDEX, "ifindex"));
    }

    /**
     * @return the device's MTU.
     */
    public static int mtu(final String namespace, final String device)
    {
        return Integer.parseInt(field(namespace, device, MTU, "mtu"));
    }

    /** A device as {@code ip -j link} shows it. */
    public record Link(String name, int ifindex, String mac, int mtu)
    {
    }

    /**
     * @return every device of the namespace by name, from one {@code ip -j link show}.
     */
    public static Map<String, Link> links(final String namespace)
    {
        final String json = ip(namespace, "-j", "link", "show");
        final Map<String, Link> links = new LinkedHashMap<>();
        // One object per device, and no nested objects without -d: split where the next device starts.
        for (final String device : json.split("\\},\\{"))
        {
            final Matcher name = NAME.matcher(device);
            final Matcher ifindex = IFINDEX.matcher(device);
            final Matcher mac = MAC.matcher(device);
            final Matcher mtu = MTU.matcher(device);
            if (name.find() && ifindex.find() && mac.find() && mtu.find())
            {
                links.put(name.group(1), new Link(name.group(1), Integer.parseInt(ifindex.group(1)), mac.group(1),
                    Integer.parseInt(mtu.group(1))));
            }
        }
        return links;
    }

    /** A device's counters from {@code /proc/net/dev}. */
    public record Counters(long rxBytes, long rxPackets, long txBytes, long txPackets)
    {
        /** @return these minus {@code before}. */
        public Counters since(final Counters before)
        {
            return new Counters(rxBytes - before.rxBytes(), rxPackets - before.rxPackets, txBytes - before.txBytes(),
                txPackets - before.txPackets);
        }
    }

    /**
     * @return the device's receive and transmit counters, as the namespace's {@code /proc/net/dev} has them
     *         (read through {@code /proc/thread-self}, which follows the reading thread's namespace).
     */
    public static Counters counters(final String namespace, final String device)
    {
        final List<String> lines = TestNetwork.callIn(namespace,
            () -> Files.readAllLines(Path.of("/proc/thread-self/net/dev")));
        for (final String line : lines)
        {
            final int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equals(device))
            {
                // Receive: bytes packets errs drop fifo frame compressed multicast; then transmit: bytes packets...
                final String[] fields = line.substring(colon + 1).trim().split("\\s+");
                return new Counters(Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[8]),
                    Long.parseLong(fields[9]));
            }
        }
        throw new IllegalStateException("no device " + device + " in /proc/net/dev of " + namespace);
    }

    /**
     * @param group a group of the namespace's {@code /proc/net/snmp}, e.g. {@code Ip} or {@code Icmp}.
     * @param name  a counter of it, e.g. {@code FragFails} (ip_forward's count of DF packets too big for the route
     *              out, each answered with frag-needed) or {@code InAddrErrors}.
     * @return its value (read through {@code /proc/thread-self}, which follows the reading thread's namespace).
     */
    public static long snmp(final String namespace, final String group, final String name)
    {
        final List<String> lines = TestNetwork.callIn(namespace,
            () -> Files.readAllLines(Path.of("/proc/thread-self/net/snmp")));
        final String prefix = group + ": ";
        // Each group is a line of names followed by a line of values.
        for (int i = 0; i + 1 < lines.size(); i++)
        {
            if (lines.get(i).startsWith(prefix) && lines.get(i + 1).startsWith(prefix))
            {
                final List<String> names = List.of(lines.get(i).trim().split("\\s+"));
                final int index = names.indexOf(name);
                if (index < 0)
                {
                    break;
                }
                return Long.parseLong(lines.get(i + 1).trim().split("\\s+")[index]);
            }
        }
        throw new IllegalStateException("no " + group + " " + name + " in /proc/net/snmp of " + namespace);
    }

    /**
     * @param name a counter of the namespace's {@code /proc/net/snmp6}, e.g. {@code Ip6ReasmOKs} (packets the kernel
     *             put back together from their fragments).
     * @return its value.
     */
    public static long snmp6(final String namespace, final String name)
    {
        final List<String> lines = TestNetwork.callIn(namespace,
            () -> Files.readAllLines(Path.of("/proc/thread-self/net/snmp6")));
        for (final String line : lines)
        {
            final String[] fields = line.trim().split("\\s+");
            if (fields.length == 2 && fields[0].equals(name))
            {
                return Long.parseLong(fields[1]);
            }
        }
        throw new IllegalStateException("no " + name + " in /proc/net/snmp6 of " + namespace);
    }

    /**
     * Waits until every device of the namespace but {@code lo} is operationally up and, with IPv6, has a
     * link-local address that is not tentative. A veth's carrier is on as soon as both ends are up, but its
     * operational state (and with it IPv6's link-local address) follows only when the kernel's link-watch
     * work has run, which can take most of a second; until then the kernel sends no neighbour solicitation
     * from that device ({@code ndisc_send_ns} wants a usable link-local source when the packet's own is not
     * local), so a first SYN forwarded then is lost and TCP only retries a second later.
     *
     * @throws IllegalStateException when some device is not ready after 5 s.
     */
    public static void awaitReady(final String namespace, final boolean ipv6)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        String notReady = notReady(namespace, ipv6);
        while (notReady != null)
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("devices in " + namespace + " not ready after 5 s: " + notReady);
            }
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for the devices of " + namespace, ex);
            }
            notReady = notReady(namespace, ipv6);
        }
    }

    /** @return the first device that is not ready and why, or null when all are. */
    private static String notReady(final String namespace, final boolean ipv6)
    {
        final String links = ip(namespace, "-o", "link", "show");
        final String addresses = ipv6 ? ip(namespace, "-o", "-6", "addr", "show", "scope", "link") : "";
        for (final String line : links.split("\n"))
        {
            final String[] fields = line.trim().split("\\s+");
            if (fields.length < 2)
            {
                continue;
            }
            final String device = fields[1].replaceAll("[:@].*", "");
            if (device.equals("lo"))
            {
                continue;
            }
            if (!line.contains(" state UP "))
            {
                return device + " is not up: " + line.trim();
            }
            if (ipv6)
            {
                final boolean linkLocal = Arrays.stream(addresses.split("\n"))
                    .anyMatch(address -> address.matches("\\d+: " + Pattern.quote(device) + "\\s+inet6 fe80:.*") &&
                        !address.contains("tentative"));
                if (!linkLocal)
                {
                    return device + " has no usable IPv6 link-local address yet";
                }
            }
        }
        return null;
    }

    /** Turns the kernel's IPv4 and IPv6 forwarding on or off in the namespace. */
    public static void forwarding(final String namespace, final boolean on)
    {
        final String value = on ? "1" : "0";
        sysctl(namespace, "net.ipv4.ip_forward", value);
        if (Files.exists(Path.of("/proc/sys/net/ipv6")))
        {
            final String disabled = readSysctl(namespace, "net.ipv6.conf.all.disable_ipv6");
            if (disabled.equals("0"))
            {
                sysctl(namespace, "net.ipv6.conf.all.forwarding", value);
            }
        }
    }

    private static String field(final String namespace, final String device, final Pattern pattern,
        final String what)
    {
        final String json = ip(namespace, "-j", "link", "show", "dev", device);
        final Matcher matcher = pattern.matcher(json);
        if (!matcher.find())
        {
            throw new IllegalStateException("no " + what + " for " + device + " in " + namespace + ": " + json);
        }
        return matcher.group(1);
    }

    /**
     * @return the MAC address's six bytes.
     * @throws IllegalArgumentException when it is not six colon-separated hex bytes.
     */
    public static byte[] macBytes(final String mac)
    {
        final String[] parts = mac.split(":");
        if (parts.length != 6)
        {
            throw new IllegalArgumentException("not a MAC address: " + mac);
        }
        final byte[] bytes = new byte[6];
        for (int i = 0; i < 6; i++)
        {
            bytes[i] = (byte)Integer.parseInt(parts[i], 16);
        }
        return bytes;
    }
}
