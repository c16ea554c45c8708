/**
 * memory-mnemo: OpenClaw's memory served by mnemo (docs/openclaw.md). It takes the memory
 * slot (kind "memory" in openclaw.plugin.json), gives the model memory_search, memory_get,
 * memory_write and memory_supersede acting for the agent and the sender of the turn, tells
 * the model to use them, and sends the pre-compaction flush to mnemo. Types come from
 * OpenClaw's plugin SDK; nothing of it is imported at run time, so the plugin loads into
 * whichever OpenClaw hosts it.
 */
import type { MemoryPluginCapability, OpenClawPluginApi, OpenClawPluginToolContext } from 'openclaw/plugin-sdk/core'
import { forwardFlush, type ToolCall, type ToolCallContext } from './src/flush.js'
import { flushPlan, memoryRuntime, promptSection } from './src/memory-capability.js'
import { readSettings } from './src/settings.js'
import { memoryTools } from './src/tools.js'

const TOOL_NAMES = ['memory_search', 'memory_get', 'memory_write', 'memory_supersede']

export default {
  id: 'memory-mnemo',
  name: 'mnemo memory',
  description: 'OpenClaw memory served by mnemo',
  register(api: OpenClawPluginApi) {
    // register() runs several times per process (full, discovery): it only declares things.
    const settings = readSettings(api.pluginConfig, process.env)
    api.registerMemoryCapability({
      promptBuilder: ({ availableTools }) => promptSection(availableTools),
      flushPlanResolver: (p) => flushPlan(p),
      runtime: memoryRuntime(settings) as unknown as MemoryPluginCapability['runtime'],
    })
    api.registerTool(
      (ctx: OpenClawPluginToolContext) =>
        memoryTools(settings, {
          agentId: ctx.agentId,
          senderId: ctx.requesterSenderId,
          senderIsOwner: ctx.senderIsOwner,
        }) as never,
      { names: TOOL_NAMES },
    )
    api.on('after_tool_call', async (event, ctx) => {
      await forwardFlush(settings, event as ToolCall, ctx as ToolCallContext, api.logger)
    })
  },
}
