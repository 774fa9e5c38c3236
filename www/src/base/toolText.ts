// What a zh-CN user reads of a tool, in Chinese: the builtin tools' descriptions, and the fixed sentences
// the backend's own tools answer with (an escalation recorded, a memory saved, a file written). The MODEL
// reads the English: a tool's description is the catalog's, its output the backend's; the pages show the
// Chinese text and keep the English the model read one click away (docs/runtime.md, "What the model
// reads, what a user reads"). A tool of a catalog file or an MCP server keeps its own description.
import { locale } from './i18n';

/** The zh-CN description of each builtin tool (the catalog's English is what the model reads). */
const DESCRIPTIONS_ZH: Record<string, string> = {
  bash: '在会话的工作区里运行一条 shell 命令。',
  read_file: '读取工作区里的一个文本文件。',
  list_dir: '列出工作区里一个目录的内容。',
  find_files: '按文件名模式在工作区里查找文件。',
  grep: '用正则表达式搜索工作区里文件的内容。',
  write_file: '在工作区里新建或覆盖一个文件。',
  edit: '替换工作区某个文件里的一段确切文本。',
  patch: '把一个 unified diff 应用到工作区的文件上。',
  todo: '维护本会话中 Agent 的待办清单。',
  clarify: '向用户提一个澄清问题，并等待回答。',
  escalate: '把对话交给人工处理（运营人员）。',
  read_skill: '读取绑定到 Agent 的某个 skill 的说明。',
  read_skill_file: '读取已绑定 skill 附带的一个文件。',
  skill_manage: '新建、更新或删除 Agent 的 skill。',
  execute_skill: '运行已绑定 skill 附带的一个脚本。',
  memory_save: '把一条事实存入 Agent 的长期记忆。',
  memory_recall: '从 Agent 的长期记忆中找回事实。',
  delegate_task: '把一个任务委派给 Crew 中的子 Agent。',
  delegate_parallel: '把多个任务并行委派给 Crew 中的子 Agent。',
};

/**
 * The description a user of the page's language reads for a tool: the zh-CN text of a builtin tool whose
 * stored description is still the catalog's (`catalog`), else null (the stored text is shown as it is).
 */
export function toolDescription(name: string, stored: string | null | undefined, catalog: string | null | undefined): string | null {
  if (locale.value !== 'zh-CN') return null;
  const zh = DESCRIPTIONS_ZH[name];
  if (!zh) return null;
  // an administrator's own description is theirs: only the catalog's English gets the Chinese text
  return stored == null || stored === '' || stored === catalog ? zh : null;
}

const q = (s: string) => `「${s}」`;
const SKILL_VERBS: Record<string, string> = { created: '新建', updated: '更新', deleted: '删除' };

/** The backend's fixed answers (js/backend/src/runtime/tools/main.ts, agent/executor.ts) and their zh-CN sentences. */
const OUTPUTS_ZH: Array<[string, RegExp, (m: RegExpExecArray) => string]> = [
  ['escalate', /^Escalation #(\d+) recorded: an operator will see it and answer\.$/, (m) => `已记录升级 #${m[1]}：运营人员会看到并答复。`],
  ['memory_save', /^saved memory #(\d+)$/, (m) => `已存入记忆 #${m[1]}。`],
  ['memory_recall', /^no memory matches ("(?:[^"\\]|\\.)*")$/, (m) => `没有与${q(JSON.parse(m[1]) as string)}匹配的记忆。`],
  ['todo', /^todo list cleared$/, () => '待办清单已清空。'],
  ['write_file', /^wrote (\d+) bytes to (.+)$/, (m) => `已写入 ${m[1]} 字节到 ${m[2]}。`],
  ['edit', /^edited (.+)$/, (m) => `已编辑 ${m[1]}。`],
  ['skill_manage', /^(created|updated|deleted) skill (.+)$/, (m) => `已${SKILL_VERBS[m[1]]} skill ${m[2]}。`],
  [
    'clarify',
    /^No user can answer a sub-agent's question \(([\s\S]*)\): go on with the most reasonable assumption, and say in your answer what you assumed\.$/,
    (m) => `子 Agent 的问题没有用户可以回答（${m[1]}）：它按最合理的假设继续，并在回答中说明所做的假设。`,
  ],
];

/** A patch's summary: one line per file (created / patched / deleted). */
const PATCH_LINE = /^(created|patched|deleted) (.+)$/;

/**
 * The sentence a zh-CN user reads for a tool's output, when it is one of the backend's fixed answers;
 * null otherwise (a file's text, a command's output, an English page: shown as the model read it).
 */
export function toolOutputSentence(tool: string, output: string | null | undefined): string | null {
  if (locale.value !== 'zh-CN' || !output) return null;
  for (const [name, re, say] of OUTPUTS_ZH) {
    const m = name === tool ? re.exec(output) : null;
    if (m) return say(m);
  }
  const lines = output.split('\n');
  if (tool === 'patch' && lines.every((l) => PATCH_LINE.test(l))) {
    const verb: Record<string, string> = { created: '已新建', patched: '已修改', deleted: '已删除' };
    return lines
      .map((l) => {
        const m = PATCH_LINE.exec(l)!;
        return `${verb[m[1]]} ${m[2]}`;
      })
      .join('\n');
  }
  return null;
}
