package io.jvs.forwarder.daemon;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The daemon's log: one line per event on standard error, {@code TIME LEVEL message}, e.g.
 * {@code 2026-12-01T16:20:01.123Z info ready: ...}. Under systemd the journal adds its own time; the level
 * words are those of syslog, so a reader can grep for {@code error}. Messages from the ports, which log through
 * {@link System.Logger} (java.util.logging underneath), are routed here too, so nothing prints on two lines.
 * Thread-safe; only control paths log.
 */
public final class DaemonLog
{
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
        .withZone(ZoneOffset.UTC);
    private static volatile PrintStream out = System.err;

    private DaemonLog()
    {
    }

    /** Sends java.util.logging (and so {@link System.Logger}) records to this log, one line each. */
    public static void takeOverJavaLogging()
    {
        final Logger root = LogManager.getLogManager().getLogger("");
        for (final Handler handler : root.getHandlers())
        {
            root.removeHandler(handler);
        }
        root.addHandler(new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                final int level = record.getLevel().intValue();
                final String word = level >= 1000 ? "error" : level >= 900 ? "warning" : level >= 800 ? "info" :
                    "debug";
                if (level >= 800)
                {
                    line(word, record.getMessage() + (record.getThrown() != null ? ": " + record.getThrown() : ""));
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        });
    }

    /** For tests: where lines go. */
    static void redirect(final PrintStream stream)
    {
        out = stream;
    }

    public static void info(final String message)
    {
        line("info", message);
    }

    public static void warning(final String message)
    {
        line("warning", message);
    }

    public static void error(final String message)
    {
        line("error", message);
    }

    private static void line(final String level, final String message)
    {
        final String text = TIME.format(Instant.now()) + " " + level + " " + message.replace('\n', ' ');
        final PrintStream stream = out;
        synchronized (DaemonLog.class)
        {
            stream.println(text);
            stream.flush();
        }
    }
}
