package io.jvs.forwarder.control.netlink;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * What the IPVS netlink endpoint drives: the load balancer's services, real servers, timeouts and counters. The
 * endpoint decodes and checks each request as the kernel's netlink layer does and leaves to the backend what the
 * kernel's tables decide ({@code ip_vs_ctl.c}: EEXIST for a service or server that is there, ESRCH for a missing
 * service, ENOENT for a missing server or an unknown scheduler, ERANGE for a weight or thresholds out of range).
 * Calls come from the client's thread, several clients at once.
 */
public interface IpvsNetlinkBackend
{
    /**
     * Carries out a change, all or nothing.
     *
     * @return 0 when done, or the positive errno the kernel would answer (nothing changed then).
     */
    int apply(IpvsNetlinkRequest.Change change);

    /** @return every service, IPv4 and IPv6, address and fwmark ones. */
    List<IpvsServiceEntry> listServices();

    /** @return the service, or empty when there is none (ESRCH for a get). */
    default Optional<IpvsServiceEntry> service(final IpvsServiceKey key)
    {
        return listServices().stream().filter(entry -> entry.key().equals(key)).findFirst();
    }

    /** @return the service's real servers, empty when the service is not there (as the kernel's dump). */
    List<IpvsDestEntry> listDests(IpvsServiceKey service);

    /** @return the version and connection table size. */
    IpvsInfo info();

    /** @return the TCP, TCP FIN and UDP timeouts. */
    IpvsTimeouts timeouts();

    /** @return the running sync daemons (none by default). */
    default List<IpvsDaemon> daemons()
    {
        return List.of();
    }

    /** @return the text of {@code /proc/net/ip_vs_conn}: its header line and one line per connection entry. */
    String connectionsFile();

    /**
     * A {@code /proc/net/ip_vs*} file for the preload library's {@code fopen}.
     *
     * @return its content, or empty when there is no such file (ENOENT).
     */
    default Optional<byte[]> procFile(final String path)
    {
        return switch (path)
        {
            case "/proc/net/ip_vs_conn" -> Optional.of(connectionsFile().getBytes(StandardCharsets.US_ASCII));
            case "/proc/net/ip_vs" -> Optional.of(IpvsProcFiles.services(this).getBytes(StandardCharsets.US_ASCII));
            case "/proc/net/ip_vs_stats" ->
                Optional.of(IpvsProcFiles.stats(this).getBytes(StandardCharsets.US_ASCII));
            default -> Optional.empty();
        };
    }
}
