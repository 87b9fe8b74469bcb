package org.slf4j.impl;

import org.slf4j.ILoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;
import org.slf4j.spi.LoggerFactoryBinder;

/**
 * The tools' SLF4J 1.7 binding: pcap4j logs through SLF4J, and without a binding SLF4J prints three
 * "Failed to load class org.slf4j.impl.StaticLoggerBinder" lines on the first filter or live capture. The
 * tools report what matters themselves, one line each, so pcap4j's log goes nowhere. SLF4J 1.7 finds its
 * binding as this class by name (LoggerFactory.bind); the jar holds no other.
 */
public final class StaticLoggerBinder implements LoggerFactoryBinder
{
    /**
     * The SLF4J API version this binding is written for; SLF4J reads the field (not a constant, so the
     * compiler does not inline it into SLF4J's check).
     */
    public static String REQUESTED_API_VERSION = "1.7.26";

    private static final StaticLoggerBinder SINGLETON = new StaticLoggerBinder();

    private final ILoggerFactory factory = new NOPLoggerFactory();

    private StaticLoggerBinder()
    {
    }

    /**
     * @return the binding, as SLF4J asks for it.
     */
    public static StaticLoggerBinder getSingleton()
    {
        return SINGLETON;
    }

    @Override
    public ILoggerFactory getLoggerFactory()
    {
        return factory;
    }

    @Override
    public String getLoggerFactoryClassStr()
    {
        return NOPLoggerFactory.class.getName();
    }
}
