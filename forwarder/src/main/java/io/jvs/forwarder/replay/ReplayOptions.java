package io.jvs.forwarder.replay;

import io.jvs.core.conn.ConnectionTable;

import java.nio.file.Path;

/**
 * What to replay and where the results go.
 *
 * @param rules       ipvsadm rules ({@code ipvsadm -S} format), or null when the config gives the services.
 * @param config      the box's ports, next hops, switches, timeouts and perhaps services ({@link ReplayConfig}),
 *                    or null for the defaults.
 * @param input       a pcap or pcapng capture.
 * @param filter      a tcpdump filter expression: only matching records are replayed; null for all.
 * @param output      where forwarded frames are written, or null.
 * @param all         write passed and dropped frames too, each marked with its verdict (pcapng comments).
 * @param decisions   where one CSV line per new connection goes, or null.
 * @param workers     pipelines the frames are spread over (as the daemon's workers), 1 and up.
 * @param connections each worker's IPv4 connection table capacity (IPv6 gets a quarter).
 * @param firewallMark a mark given to every frame, as an iptables MARK rule matching everything on the box
 *                    would (for {@code -f} services), or 0 for none.
 */
public record ReplayOptions(
    Path rules, Path config, Path input, String filter, Path output, boolean all, Path decisions, int workers,
    int connections, int firewallMark)
{
    /** The default connection table capacity per worker. */
    public static final int DEFAULT_CONNECTIONS = 1 << 20;

    public ReplayOptions
    {
        if (input == null)
        {
            throw new IllegalArgumentException("a replay needs an input capture");
        }
        if (rules == null && config == null)
        {
            throw new IllegalArgumentException("a replay needs services: --rules FILE, or a --config that gives them");
        }
        if (workers < 1 || workers > 64)
        {
            throw new IllegalArgumentException("--workers must be 1..64, not " + workers);
        }
        if (connections < 1024 || connections > ConnectionTable.MAX_CAPACITY)
        {
            throw new IllegalArgumentException("--connections (the connection table capacity) must be 1024.." +
                ConnectionTable.MAX_CAPACITY + ", not " + connections);
        }
        if (all && output != null && output.getFileName().toString().endsWith(".pcap"))
        {
            throw new IllegalArgumentException("--all marks each frame with a pcapng comment: name the output " +
                "*.pcapng, not " + output.getFileName());
        }
    }

    /**
     * @return options with one worker, the default table size, no config, filter, decisions or --all.
     */
    public static ReplayOptions of(final Path rules, final Path input, final Path output)
    {
        return new ReplayOptions(rules, null, input, null, output, false, null, 1, DEFAULT_CONNECTIONS, 0);
    }

    /**
     * @return these options with every frame marked.
     */
    public ReplayOptions withFirewallMark(final int mark)
    {
        return new ReplayOptions(rules, config, input, filter, output, all, decisions, workers, connections, mark);
    }
}
