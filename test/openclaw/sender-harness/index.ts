/**
 * TEST ONLY: `openclaw mnemo-test-turn --sender alice -m "…"` runs one embedded agent turn as
 * if a Telegram user had sent the message, through OpenClaw's own runtime
 * (api.runtime.agent.runEmbeddedAgent with senderId), since `openclaw agent` has no sender.
 * Prints the reply payloads as JSON.
 */
import { randomUUID } from 'node:crypto'

type Api = {
  registerCli(
    register: (p: { program: Program }) => void,
    opts: { descriptors: { name: string; description: string; hasSubcommands: boolean }[] },
  ): void
  runtime: {
    config: { current(): unknown }
    agent: {
      resolveAgentWorkspaceDir(cfg: unknown, agentId: string): string
      resolveAgentDir(cfg: unknown, agentId: string): string
      runEmbeddedAgent(p: Record<string, unknown>): Promise<{ payloads?: unknown; meta?: { error?: unknown } }>
    }
  }
}
type Program = {
  command(name: string): Program
  description(text: string): Program
  requiredOption(flags: string, text: string): Program
  action(fn: (opts: { sender: string; message: string }) => Promise<void>): Program
}

export default {
  id: 'mnemo-test-sender',
  name: 'mnemo test sender',
  description: 'TEST ONLY: one agent turn as a channel sender',
  register(api: Api) {
    api.registerCli(
      ({ program }) => {
        program
          .command('mnemo-test-turn')
          .description('One agent turn as a channel sender')
          .requiredOption('--sender <id>', 'sender id')
          .requiredOption('-m, --message <text>', 'the message')
          .action(async (opts) => {
            const cfg = api.runtime.config.current()
            const sessionId = randomUUID()
            const result = await api.runtime.agent.runEmbeddedAgent({
              sessionId,
              // A session of its own each time: a second turn on one session would need its id.
              sessionKey: `agent:main:telegram:direct:${opts.sender}:${sessionId.slice(0, 8)}`,
              agentId: 'main',
              messageChannel: 'telegram',
              messageProvider: 'telegram',
              chatType: 'direct',
              senderId: opts.sender,
              senderName: opts.sender,
              senderIsOwner: false,
              workspaceDir: api.runtime.agent.resolveAgentWorkspaceDir(cfg, 'main'),
              agentDir: api.runtime.agent.resolveAgentDir(cfg, 'main'),
              config: cfg,
              prompt: opts.message,
              provider: 'fake',
              model: 'fake-1',
              timeoutMs: 120_000,
              runId: sessionId,
              trigger: 'user',
            })
            process.stdout.write(
              `${JSON.stringify({ payloads: result.payloads, error: result.meta?.error ?? null })}\n`,
            )
          })
      },
      {
        descriptors: [
          { name: 'mnemo-test-turn', description: 'One agent turn as a channel sender', hasSubcommands: false },
        ],
      },
    )
  },
}
