package io.jvs.nativebindings.bpf;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;

/**
 * A process that holds XDP links for {@link BpfXdpLinkTest}, started inside a test namespace (an
 * interface index means something only in its own namespace). It loads program 1, prints
 * {@code ready <program id>}, then obeys one command per line on stdin, answering each on stdout:
 * <pre>
 *   attach DEVICE SKB|DRV   -> attached | error MESSAGE
 *   detach                  -> detached   (closes the newest link)
 * </pre>
 * End of input closes everything and exits.
 */
public final class XdpAttachChild
{
    private XdpAttachChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Syscalls syscalls = Syscalls.create();
        final Deque<XdpLink> links = new ArrayDeque<>();
        try (BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_child_xsks", 1);
             BpfProgram program = BpfProgram.loadXdp(syscalls, "jvs_child",
                 XdpPrograms.redirectAll(XdpAction.PASS).link(Map.of(XdpPrograms.XSKS, xsks.fd()))))
        {
            System.out.println("ready " + program.id());
            final BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = commands.readLine(); line != null; line = commands.readLine())
            {
                final String[] words = line.split(" ");
                switch (words[0])
                {
                    case "attach" -> System.out.println(attach(syscalls, program, words[1], words[2], links));
                    case "detach" ->
                    {
                        links.pop().close();
                        System.out.println("detached");
                    }
                    default -> System.out.println("error unknown command " + line);
                }
            }
        }
        finally
        {
            links.forEach(XdpLink::close);
        }
    }

    private static String attach(final Syscalls syscalls, final BpfProgram program, final String device,
        final String mode, final Deque<XdpLink> links)
    {
        try
        {
            links.push(XdpLink.attach(syscalls, program, device, XdpMode.valueOf(mode)));
            return "attached";
        }
        catch (final NativeCallException ex)
        {
            return "error " + ex.getMessage();
        }
    }
}
