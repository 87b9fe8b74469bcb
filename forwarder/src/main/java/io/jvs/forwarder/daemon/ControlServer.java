package io.jvs.forwarder.daemon;

import io.jvs.core.io.IoMessages;
import io.jvs.forwarder.control.ControlProtocol;
import io.jvs.forwarder.control.ControlProtocolException;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.control.netlink.IpvsNetlinkBackend;
import io.jvs.forwarder.control.netlink.IpvsNetlinkSession;
import io.jvs.nativebindings.ChannelDescriptors;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.PeerCredentials;
import io.jvs.nativebindings.Syscalls;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The daemon's control socket: a Unix stream socket at the config's {@code control} path, mode 0660, owned by the
 * config's group (root's by default). A connection is served only when its peer, as the kernel recorded it at
 * connect(2) ({@code SO_PEERCRED}, {@code SO_PEERGROUPS}), is root or has the socket's group as its own or a
 * supplementary one: the file mode alone would let in any process that can reach the file with the group's
 * permissions, a descriptor passed on, or a mode changed by hand. Refused peers are counted.
 * <p>
 * One request per connection, as {@link ControlProtocol} frames it; for {@code socat} and scripts a single text
 * line {@code status} or {@code reload} is also understood, and answered with text ended by an empty line. Every
 * client has its own virtual thread and a deadline for its request and for taking the answer, so a slow, stuck or
 * vanished client holds up neither the conductor nor a worker nor another client. A request is checked whole
 * before the handler sees it: a malformed, truncated or oversized one is refused and changes nothing.
 * <p>
 * With an {@link IpvsNetlinkBackend}, a connection that opens with a {@link ControlProtocol#NETLINK} header stays
 * open as an IPVS generic netlink session ({@link IpvsNetlinkSession}: what the preload library gives ipvsadm and
 * keepalived), idle for as long as the client likes but held to the same deadline within each datagram, and a
 * {@link ControlProtocol#PROC_FILE} request is answered with the backend's {@code /proc/net/ip_vs*} text.
 */
final class ControlServer implements AutoCloseable
{
    /** The longest text request line. */
    static final int MAX_TEXT_REQUEST = 4096;
    /**
     * A client must send its whole request within this long, and take its whole answer within this long of the
     * answer being ready (a listing of a large connection table may take seconds to make).
     */
    static final long REQUEST_TIMEOUT_MS = 5_000;
    private static final int ENOENT = 2;

    /** The file type bits of st_mode, and a socket's (inode(7)). */
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    /** Why a daemon does not take over a socket that answers. */
    static final String ANOTHER_DAEMON_ANSWERS = "another jvs daemon answers on this control socket";
    private static final String NOT_A_SOCKET =
        "exists and is not a socket: jvs replaces only a stale socket, never another file";

    private final Path path;
    /** The group named in the configuration (null: the daemon's), for a socket made again. */
    private final String groupName;
    /** The socket file's identity when it was made: only that file is removed at the end. */
    private volatile Object socketFile;
    private volatile ServerSocketChannel server;
    private final Function<ControlRequest, ControlResponse> handler;
    private final IpvsNetlinkBackend ipvs;
    private final Set<SocketChannel> sessions = ConcurrentHashMap.newKeySet();
    private final int group;
    private final Thread acceptor;
    private final ControlCounters counters = new ControlCounters();
    /** A client may leave before its answer as often as it likes: one line a second at most says so. */
    private final ThrottledWarnings clientErrorLog =
        new ThrottledWarnings(TimeUnit.SECONDS.toNanos(1), System::nanoTime);
    private final Syscalls credentials = Syscalls.create();
    private volatile boolean closed;

    /** A listening socket bound to the path, with the file's identity and group. */
    private record BoundSocket(ServerSocketChannel channel, Object fileKey, int gid)
    {
    }

    private ControlServer(final Path path, final String groupName, final BoundSocket bound,
        final Function<ControlRequest, ControlResponse> handler, final IpvsNetlinkBackend ipvs)
    {
        this.path = path;
        this.groupName = groupName;
        this.socketFile = bound.fileKey();
        this.server = bound.channel();
        this.handler = handler;
        this.ipvs = ipvs;
        this.group = bound.gid();
        this.acceptor = Thread.ofPlatform().daemon().name("jvs-control").unstarted(() -> accept(bound.channel()));
    }

    /**
     * Creates the socket (and its directory), refusing to take over a socket another daemon answers on; a stale
     * socket file left by a killed daemon is replaced.
     *
     * @param group   the group that may use the socket, or null for root's.
     * @param handler answers a checked request (on the client's thread).
     * @throws IOException naming the path when it cannot be made.
     */
    static ControlServer open(final Path path, final String group,
        final Function<ControlRequest, ControlResponse> handler) throws IOException
    {
        return open(path, group, handler, null);
    }

    /**
     * As {@link #open(Path, String, Function)}, also serving IPVS generic netlink sessions and {@code /proc} file
     * requests from the backend.
     *
     * @param ipvs what netlink sessions drive, or null to refuse them.
     */
    static ControlServer open(final Path path, final String group,
        final Function<ControlRequest, ControlResponse> handler, final IpvsNetlinkBackend ipvs) throws IOException
    {
        try
        {
            return create(path, group, handler, ipvs);
        }
        catch (final IOException ex)
        {
            throw new IOException(path + ": " + reason(ex), ex);
        }
    }

    private static ControlServer create(final Path path, final String group,
        final Function<ControlRequest, ControlResponse> handler, final IpvsNetlinkBackend ipvs) throws IOException
    {
        final String refusal = refusal(path, group);
        if (refusal != null)
        {
            throw new IOException(refusal);
        }
        final Path parent = path.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS))
        {
            if (answers(path))
            {
                throw new IOException(ANOTHER_DAEMON_ANSWERS);
            }
            if (!isSocket(path))
            {
                throw new IOException(NOT_A_SOCKET);
            }
            Files.delete(path);
        }
        final BoundSocket bound = bind(path, group);
        if (!ChannelDescriptors.available())
        {
            DaemonLog.warning("control socket: the JVM does not export sun.nio.ch to jvs, so a peer's supplementary " +
                "groups cannot be read; only root and members by primary group are served (run jvs by its launcher)");
        }
        final ControlServer control = new ControlServer(path, group, bound, handler, ipvs);
        control.acceptor.start();
        return control;
    }

    private static BoundSocket bind(final Path path, final String group) throws IOException
    {
        final ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try
        {
            server.bind(UnixDomainSocketAddress.of(path));
            final Object socketFile = fileKey(path);
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw----"));
            if (group != null)
            {
                final GroupPrincipal principal = path.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByGroupName(group);
                Files.getFileAttributeView(path, PosixFileAttributeView.class).setGroup(principal);
            }
            return new BoundSocket(server, socketFile, (int)Files.getAttribute(path, "unix:gid"));
        }
        catch (final IOException | RuntimeException ex)
        {
            server.close();
            Files.deleteIfExists(path);
            throw ex;
        }
    }

    /**
     * Makes the socket again when its file has gone (someone removed it): a client finds a socket by its path
     * (unix_find_bsd), so the listening socket whose name was unlinked can no longer be reached, by ctl, keepalived
     * or status. A reload calls it, as the operator's way to get the socket back without a restart. A file someone
     * else put at the path is left alone.
     *
     * @return what was done, for the log, or null when the path still names a file.
     * @throws IOException naming the path when it cannot be made.
     */
    synchronized String rebindIfRemoved() throws IOException
    {
        if (closed || Files.exists(path, LinkOption.NOFOLLOW_LINKS))
        {
            return null;
        }
        final BoundSocket bound;
        try
        {
            bound = bind(path, groupName);
        }
        catch (final IOException ex)
        {
            throw new IOException(path + ": " + reason(ex), ex);
        }
        final ServerSocketChannel unreachable = server;
        server = bound.channel();
        socketFile = bound.fileKey();
        Thread.ofPlatform().daemon().name("jvs-control").start(() -> accept(bound.channel()));
        unreachable.close();
        return "control socket " + path + " had been removed: made again";
    }

    /** An exception's reason without the path the JDK puts in front of it. */
    private static String reason(final IOException ex)
    {
        if (ex instanceof UserPrincipalNotFoundException missing)
        {
            return "no group \"" + missing.getName() + "\" on this system";
        }
        return IoMessages.reason(ex);
    }

    /**
     * What is wrong with a control socket path and group before the daemon touches anything: a path that names
     * something other than a socket (a stale socket left by a killed daemon may be replaced; a file, directory or
     * symbolic link never is), a parent that is not a directory, or a group the system does not know.
     *
     * @param path  the socket's path.
     * @param group the group to give it, or null.
     * @return the reason (without the path), or null when the daemon may go ahead.
     */
    static String refusal(final Path path, final String group)
    {
        if (Files.isSymbolicLink(path))
        {
            return "is a symbolic link: name the socket's own path";
        }
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && !isSocket(path))
        {
            return NOT_A_SOCKET;
        }
        for (Path parent = path.toAbsolutePath().getParent(); parent != null; parent = parent.getParent())
        {
            if (Files.exists(parent))
            {
                if (!Files.isDirectory(parent))
                {
                    return parent + " is not a directory";
                }
                break;
            }
        }
        if (group != null)
        {
            try
            {
                path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(group);
            }
            catch (final UserPrincipalNotFoundException ex)
            {
                return "no group \"" + group + "\" on this system";
            }
            catch (final IOException ex)
            {
                return "cannot look up the group \"" + group + "\": " + ex.getMessage();
            }
        }
        return null;
    }

    private static boolean isSocket(final Path path)
    {
        try
        {
            return ((int)Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT) == S_IFSOCK;
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return false;
        }
    }

    private static Object fileKey(final Path path) throws IOException
    {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    }

    /** @return true when a process accepts connections on the socket at the path. */
    static boolean answers(final Path path)
    {
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            return probe.isConnected();
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    Path path()
    {
        return path;
    }

    /** @return the socket's counters ({@link ControlCounters} ids). */
    long counter(final int id)
    {
        return counters.get(id);
    }

    private void accept(final ServerSocketChannel listening)
    {
        while (!closed)
        {
            try
            {
                final SocketChannel client = listening.accept();
                Thread.ofVirtual().name("jvs-control-client").start(() -> serve(client));
            }
            catch (final ClosedChannelException ex)
            {
                return;
            }
            catch (final IOException ex)
            {
                if (!closed)
                {
                    DaemonLog.warning("control socket " + path + ": " + ex.getMessage());
                }
            }
        }
    }

    private void serve(final SocketChannel client)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REQUEST_TIMEOUT_MS);
        try (client)
        {
            final String refusal = refusal(client);
            client.configureBlocking(false);
            final ByteBuffer first = ByteBuffer.allocate(1);
            if (!ControlProtocol.fill(client, first, deadline))
            {
                // Closed before sending anything, as the probe of a second daemon's start does: nothing to answer.
                return;
            }
            if (first.get(0) == (byte)(ControlProtocol.MAGIC >>> 24))
            {
                serveFramed(client, refusal, deadline);
            }
            else
            {
                serveText(client, first.get(0), refusal, deadline);
            }
        }
        catch (final InterruptedIOException ex)
        {
            counters.increment(ControlCounters.TIMED_OUT);
        }
        catch (final IOException | RuntimeException ex)
        {
            counters.increment(ControlCounters.CLIENT_ERRORS);
            clientErrorLog.warning("control client: " + ex.getMessage());
        }
    }

    /** @return why the peer may not use the socket, or null when it may. */
    private String refusal(final SocketChannel client) throws IOException
    {
        final OptionalInt fd = ChannelDescriptors.of(client);
        if (fd.isPresent())
        {
            final PeerCredentials peer;
            synchronized (credentials)
            {
                try
                {
                    peer = PeerCredentials.of(credentials, fd.getAsInt());
                }
                catch (final NativeCallException ex)
                {
                    return "cannot tell who the peer is: " + ex.getMessage();
                }
            }
            return peer.uid() == 0 || peer.inGroup(group) ? null :
                "permission denied: uid " + peer.uid() + " is not root and not in group " + group;
        }
        final UnixDomainPrincipal peer = client.getOption(ExtendedSocketOptions.SO_PEERCRED);
        final String groupName = String.valueOf(Files.getAttribute(path, "posix:group"));
        return peer.user().getName().equals("root") || peer.group().getName().equals(groupName) ? null :
            "permission denied: " + peer.user().getName() + " is not root and not in group " + groupName;
    }

    private void serveFramed(final SocketChannel client, final String refusal, final long deadline)
        throws IOException
    {
        final ByteBuffer header = ByteBuffer.allocate(ControlProtocol.HEADER_LENGTH)
            .put((byte)(ControlProtocol.MAGIC >>> 24));
        ControlResponse response;
        try
        {
            if (!ControlProtocol.fill(client, header, deadline))
            {
                throw new ControlProtocolException("the message ends inside its " + ControlProtocol.HEADER_LENGTH +
                    "-byte header");
            }
            final int type = ControlProtocol.checkHeader(header);
            if (refusal != null)
            {
                counters.increment(ControlCounters.REFUSED_PEERS);
                ControlProtocol.write(client, ControlProtocol.encode(new ControlResponse.Refused(refusal)), deadline);
                return;
            }
            if (type == ControlProtocol.NETLINK)
            {
                if (header.getInt(8) != 0)
                {
                    throw new ControlProtocolException("a netlink request has no payload, not " + header.getInt(8) +
                        " bytes");
                }
                if (ipvs == null)
                {
                    throw new ControlProtocolException("this daemon serves no IPVS netlink sessions");
                }
                serveNetlink(client);
                return;
            }
            final ByteBuffer payload = ControlProtocol.readPayload(client, header.getInt(8), deadline);
            if (type == ControlProtocol.PROC_FILE)
            {
                response = procFile(ControlProtocol.decodeProcFile(payload));
            }
            else
            {
                response = handler.apply(ControlProtocol.decodeRequest(type, payload));
            }
            counters.increment(ControlCounters.SERVED);
        }
        catch (final SocketTimeoutException ex)
        {
            counters.increment(ControlCounters.TIMED_OUT);
            answerLate(client, ControlProtocol.encode(new ControlResponse.Refused(ex.getMessage())));
            return;
        }
        catch (final ControlProtocolException ex)
        {
            counters.increment(refusal != null ? ControlCounters.REFUSED_PEERS : ControlCounters.MALFORMED);
            response = new ControlResponse.Refused(refusal != null ? refusal : ex.getMessage());
        }
        ControlProtocol.write(client, ControlProtocol.encode(response), answerDeadline());
    }

    private static long answerDeadline()
    {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REQUEST_TIMEOUT_MS);
    }

    /** Serves a netlink session until the client goes; a timeout inside a datagram propagates (counted). */
    private void serveNetlink(final SocketChannel client) throws IOException
    {
        counters.increment(ControlCounters.SERVED);
        sessions.add(client);
        try
        {
            if (closed)
            {
                return;
            }
            if (new IpvsNetlinkSession(client, ipvs, REQUEST_TIMEOUT_MS).run() == IpvsNetlinkSession.End.MALFORMED)
            {
                counters.increment(ControlCounters.MALFORMED);
            }
        }
        catch (final ClosedChannelException ex)
        {
            // Closed by close(): the daemon is stopping.
        }
        catch (final IOException ex)
        {
            if (ex instanceof InterruptedIOException)
            {
                throw ex;
            }
            // A client gone mid-session (reset): nothing to tell anyone.
        }
        finally
        {
            sessions.remove(client);
        }
    }

    /** @return the file's content, or ENOENT as the status when the backend has no such file. */
    private ControlResponse procFile(final String file)
    {
        if (ipvs == null)
        {
            return new ControlResponse.Refused("this daemon serves no IPVS files");
        }
        final Optional<byte[]> content = ipvs.procFile(file);
        return content.<ControlResponse>map(bytes -> new ControlResponse.Result(0, bytes, new byte[0]))
            .orElseGet(() -> ControlResponse.Result.of(ENOENT, "", file + ": no such file\n"));
    }

    private void serveText(final SocketChannel client, final byte first, final String refusal, final long deadline)
        throws IOException
    {
        final String line;
        try
        {
            line = readLine(client, first, deadline);
        }
        catch (final SocketTimeoutException ex)
        {
            counters.increment(ControlCounters.TIMED_OUT);
            answerLate(client, ByteBuffer.wrap(("error " + ex.getMessage() + "\n\n").getBytes(StandardCharsets.UTF_8)));
            return;
        }
        final String answer;
        if (refusal != null)
        {
            counters.increment(ControlCounters.REFUSED_PEERS);
            answer = "error " + refusal;
        }
        else if (line == null)
        {
            counters.increment(ControlCounters.MALFORMED);
            answer = "error no request line of at most " + MAX_TEXT_REQUEST + " bytes (status, reload)";
        }
        else
        {
            final ControlResponse response = switch (line.trim())
            {
                case "status" -> handler.apply(new ControlRequest.Status());
                case "reload" -> handler.apply(new ControlRequest.Reload());
                default -> new ControlResponse.Refused("unknown request \"" + line.trim() + "\" (status, reload)");
            };
            counters.increment(response instanceof ControlResponse.Refused ? ControlCounters.MALFORMED :
                ControlCounters.SERVED);
            answer = switch (response)
            {
                case ControlResponse.Result result -> new String(result.output(), StandardCharsets.UTF_8) +
                    new String(result.error(), StandardCharsets.UTF_8);
                case ControlResponse.Refused refused -> "error " + refused.reason();
            };
        }
        ControlProtocol.write(client, ByteBuffer.wrap((answer.endsWith("\n") ? answer : answer + "\n")
            .concat("\n").getBytes(StandardCharsets.UTF_8)), answerDeadline());
    }

    /** Tells a client that ran out of time why it is dropped, if it takes the answer within a second. */
    private static void answerLate(final SocketChannel client, final ByteBuffer answer)
    {
        try
        {
            ControlProtocol.write(client, answer, System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
        }
        catch (final IOException ex)
        {
            // Gone or stuck: it is dropped either way.
        }
    }

    /** @return the line without its newline, or null when none ends within {@link #MAX_TEXT_REQUEST} bytes. */
    private static String readLine(final SocketChannel client, final byte first, final long deadline)
        throws IOException
    {
        final ByteBuffer in = ByteBuffer.allocate(MAX_TEXT_REQUEST).put(first);
        final ByteBuffer one = ByteBuffer.allocate(1);
        while (first != '\n' && in.hasRemaining())
        {
            one.clear();
            if (!ControlProtocol.fill(client, one, deadline))
            {
                return null;
            }
            if (one.get(0) == '\n')
            {
                return new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
            }
            in.put(one.get(0));
        }
        return first == '\n' ? "" : null;
    }

    /** Stops accepting and removes the socket file. */
    @Override
    public synchronized void close()
    {
        closed = true;
        try
        {
            server.close();
        }
        catch (final IOException ignored)
        {
            // Closing: nothing more to do with it.
        }
        for (final SocketChannel session : sessions)
        {
            try
            {
                session.close();
            }
            catch (final IOException ignored)
            {
                // Its thread ends either way.
            }
        }
        try
        {
            // Only the socket this daemon made: a file put in its place meanwhile is someone else's.
            if (isSocket(path) && fileKey(path).equals(socketFile))
            {
                Files.delete(path);
            }
        }
        catch (final java.nio.file.NoSuchFileException ex)
        {
            // Already gone.
        }
        catch (final IOException ex)
        {
            DaemonLog.warning("cannot remove the control socket " + path + ": " + ex.getMessage());
        }
    }
}
