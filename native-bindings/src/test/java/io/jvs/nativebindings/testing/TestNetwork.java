package io.jvs.nativebindings.testing;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Network namespaces and veth pairs for integration tests, built with iproute2 and always removed: on
 * {@link #close()}, and by a shutdown hook if a test dies first. Names carry the process id and a
 * counter, so tests running at the same time (other forks, other checkouts) never meet.
 * <p>
 * These tests need root (CAP_NET_ADMIN, CAP_SYS_ADMIN): CI runs as root, and they must run there.
 */
public final class TestNetwork implements AutoCloseable
{
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int CLONE_NEWNET = 0x40000000;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(groupElement("errno"));
    private static final MethodHandle OPEN = downcall("open", ADDRESS, JAVA_INT);
    private static final MethodHandle SETNS = downcall("setns", JAVA_INT, JAVA_INT);
    private static final MethodHandle CLOSE = downcall("close", JAVA_INT);

    private final String prefix;
    private final List<String> namespaces = new ArrayList<>();
    private final Thread cleanup = new Thread(this::removeAll, "test-network-cleanup");

    private TestNetwork(final String prefix)
    {
        this.prefix = prefix;
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    /**
     * @param tag a short word naming the test (letters only, at most 4 are used), for readable names.
     * @return an empty network; add namespaces and links to it.
     */
    public static TestNetwork create(final String tag)
    {
        final String word = tag.replaceAll("[^a-z]", "");
        final String shortTag = word.substring(0, Math.min(4, word.length()));
        return new TestNetwork("j" + shortTag + (ProcessHandle.current().pid() % 100_000) + "x" + NEXT.incrementAndGet());
    }

    /**
     * Creates a namespace with its loopback up.
     *
     * @param role what it is for, e.g. "gen"; the namespace is named after the network's prefix and it.
     * @return its name.
     */
    public String namespace(final String role)
    {
        final String name = prefix + role;
        run("ip", "netns", "add", name);
        namespaces.add(name);
        inNamespace(name, "ip", "link", "set", "lo", "up");
        return name;
    }

    /**
     * A veth pair, one end in each namespace, both up.
     *
     * @param namespaceA where the first end goes.
     * @param nameA      the first end's name (at most 15 characters).
     * @param namespaceB where the second end goes.
     * @param nameB      the second end's name.
     */
    public void veth(final String namespaceA, final String nameA, final String namespaceB, final String nameB)
    {
        inNamespace(namespaceA, "ip", "link", "add", nameA, "type", "veth", "peer", "name", nameB, "netns",
            namespaceB);
        inNamespace(namespaceA, "ip", "link", "set", nameA, "up");
        inNamespace(namespaceB, "ip", "link", "set", nameB, "up");
    }

    /**
     * Runs a command inside a namespace and fails the test with its output if it fails.
     *
     * @return its standard output.
     */
    public String inNamespace(final String namespace, final String... command)
    {
        final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        full.addAll(Arrays.asList(command));
        return run(full.toArray(String[]::new));
    }

    /**
     * Runs code on a new thread that first joins the namespace's network (setns(2)): the sockets it opens and
     * the interface names it resolves are the namespace's, and a socket keeps its namespace when other
     * threads use it later. The calling thread stays where it was; the new thread ends with the code.
     *
     * @param namespace a namespace made by {@link #namespace}.
     * @param body      what to run there.
     * @return what the body returned; what it threw (an assertion failure, say) is thrown here.
     */
    public static <T> T callIn(final String namespace, final Callable<T> body)
    {
        final FutureTask<T> task = new FutureTask<>(() ->
        {
            joinNetworkNamespace(namespace);
            return body.call();
        });
        final Thread thread = new Thread(task, "in-" + namespace);
        thread.start();
        try
        {
            return task.get();
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException runtime)
            {
                throw runtime;
            }
            if (cause instanceof Error error)
            {
                throw error;
            }
            throw new IllegalStateException("failed in namespace " + namespace, cause);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for namespace " + namespace, ex);
        }
    }

    private static void joinNetworkNamespace(final String namespace)
    {
        final String path = "/run/netns/" + namespace;
        final int fd;
        final int joined;
        final int errno;
        final int closed;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURE);
            fd = (int)OPEN.invokeExact(state, arena.allocateFrom(path), O_RDONLY | O_CLOEXEC);
            if (fd < 0)
            {
                throw new IllegalStateException("open " + path + " failed: errno " + (int)ERRNO.get(state, 0L));
            }
            joined = (int)SETNS.invokeExact(state, fd, CLONE_NEWNET);
            errno = (int)ERRNO.get(state, 0L);
            closed = (int)CLOSE.invokeExact(state, fd);
        }
        catch (final IllegalStateException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("setns downcall failed", ex);
        }
        if (joined != 0 || closed != 0)
        {
            throw new IllegalStateException("setns " + path + " failed: errno " + errno);
        }
    }

    private static MethodHandle downcall(final String name, final MemoryLayout... arguments)
    {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, arguments), Linker.Option.captureCallState("errno"));
    }

    /**
     * Runs a command and fails the test with its output if it fails.
     *
     * @return its standard output and error, merged.
     */
    public static String run(final String... command)
    {
        final Result result = tryRun(command);
        if (result.status != 0)
        {
            throw new IllegalStateException(String.join(" ", command) + " failed with status " + result.status +
                ": " + result.output);
        }
        return result.output;
    }

    /**
     * Runs a command whose failure the caller wants to see.
     */
    public static Result tryRun(final String... command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            final byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within 30 s");
            }
            return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot run " + String.join(" ", command), ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), ex);
        }
    }

    /** What a command did. */
    public record Result(int status, String output)
    {
    }

    /**
     * @return the names of the namespaces created so far.
     */
    public List<String> namespaces()
    {
        return List.copyOf(namespaces);
    }

    private synchronized void removeAll()
    {
        for (int i = namespaces.size() - 1; i >= 0; i--)
        {
            // Deleting a namespace deletes the veth ends in it, and so their peers.
            tryRun("ip", "netns", "del", namespaces.get(i));
        }
        namespaces.clear();
    }

    @Override
    public void close()
    {
        removeAll();
        try
        {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
        catch (final IllegalStateException ignored)
        {
            // Already shutting down: the hook is running or has run.
        }
    }
}
