// The chat page's words for the built-in demonstration model (js/backend/src/agent/demo-model.ts): its
// label, how to configure a real model instead, and the suggested prompts — each leads to one step of
// its tour (the backend reads the same words in either language).
import { computed } from 'vue';
import { locale, type Locale } from '../base/i18n';

export type DemoStep = 'read' | 'write' | 'delegate' | 'ask' | 'approval';

interface DemoDict {
  label: string;
  howToReplace: string;
  promptsTitle: string;
  prompts: Record<DemoStep, string>;
}

const zh: DemoDict = {
  label: '演示模型',
  howToReplace:
    '没有配置模型渠道：对话由内置的演示模型回答。它按脚本选择要调用的工具，每个调用都由策略包判定、在真实的沙箱里运行。要换成真实模型，请在「模型渠道」页面添加一个渠道，或设置 NETACLAW_MODEL_BASE_URL 和 NETACLAW_MODEL（需要时加 NETACLAW_MODEL_API_KEY）后重启后端。',
  promptsTitle: '演示模型能展示：',
  prompts: {
    read: '读一个文件',
    write: '试着写一个文件',
    delegate: '委派一个任务',
    ask: '问我一个问题',
    approval: '运行一个需要审批的命令',
  },
};

const en: DemoDict = {
  label: 'Demonstration model',
  howToReplace:
    'No model channel is configured: the built-in demonstration model answers. It follows a script to choose its tool calls; each call is decided by the policy package and runs in the real sandbox. To use a real model, add a channel on the Model channels page, or set NETACLAW_MODEL_BASE_URL and NETACLAW_MODEL (and NETACLAW_MODEL_API_KEY when needed) and restart the backend.',
  promptsTitle: 'The demonstration model can show:',
  prompts: {
    read: 'Read a file',
    write: 'Try to write a file',
    delegate: 'Delegate a task',
    ask: 'Ask me a question',
    approval: 'Run a command that needs approval',
  },
};

const dicts: Record<Locale, DemoDict> = { 'zh-CN': zh, en };

export const demoWords = computed<DemoDict>(() => dicts[locale.value]);
