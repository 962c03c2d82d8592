/** UI text in Chinese and English; the default follows the browser, the switcher remembers. */
import { EN_CALM, ZH_CALM } from './i18n-calm.js';
import type { Lang } from './lang.js';

export type { Lang };

const EN = {
  ...EN_CALM,
  appName: 'Xiaojia Kitchen',
  playground: 'Playground',
  language: 'Language',
  signIn: 'Sign in',
  signOut: 'Sign out',
  username: 'Username',
  password: 'Password',
  signInFailed: 'Sign-in failed',
  signInLocked: (minutes: number) =>
    `Too many failed sign-ins for this name or from this network. Try again in ${minutes} min.`,
  signInBusy: 'Many people are signing in right now. Try again in a moment.',
  demoLogins: 'Demo logins: xiaojia / demo-xiaojia, laowang / demo-laowang',
  household: 'Household',
  fridge: 'Fridge',
  recipes: 'Recipes',
  mealPlan: 'Meal plan',
  preferences: 'Preferences',
  assistant: 'Assistant',
  name: 'Name',
  quantity: 'Quantity',
  unit: 'Unit',
  location: 'Location',
  expiresOn: 'Expires on',
  add: 'Add',
  save: 'Save',
  cancel: 'Cancel',
  edit: 'Edit',
  useUp: 'Use up',
  remove: 'Remove',
  daysLeft: (n: number) => (n < 0 ? `expired ${-n} d ago` : n === 0 ? 'expires today' : `${n} d left`),
  noDate: 'no date',
  empty: 'Nothing here yet.',
  fridge_loc: 'fridge',
  freezer_loc: 'freezer',
  pantry_loc: 'pantry',
  servings: 'Servings',
  ingredients: 'Ingredients',
  ingredientsHint: 'one per line: name, quantity, unit',
  steps: 'Steps',
  stepsHint: 'one per line',
  tags: 'Tags',
  newRecipe: 'New recipe',
  week: 'Week of',
  prevWeek: 'Previous week',
  nextWeek: 'Next week',
  date: 'Date',
  slot: 'Meal',
  recipe: 'Recipe',
  breakfast: 'breakfast',
  lunch: 'lunch',
  dinner: 'dinner',
  allergies: 'Allergies',
  likes: 'Preferences',
  kind: 'Kind',
  allergy: 'allergy',
  preference: 'preference',
  label: 'Label',
  person: 'Person',
  note: 'Note',
  askPlaceholder: 'Ask about your fridge, recipes, plan or nutrition…',
  ask: 'Ask',
  stop: 'Stop',
  thinking: 'Thinking',
  calling: 'Calling',
  observed: 'Observed',
  demoMode: 'Demo mode (no model key): answers come from the rule-based demo model',
  rawAnswer: 'Unstructured answer: the model’s text could not be parsed, shown as it came',
  degraded: 'Degraded: a fallback answered',
  streamingUnavailable: 'Live streaming unavailable: showing the whole answer at once',
  statusLabel: (s: string) =>
    ({
      success: 'Done',
      cancelled: 'Stopped',
      stopped: 'Stopped at the limit',
      error: 'Something went wrong',
      awaiting_approval: 'Waiting for your approval',
      awaiting_input: 'Waiting for your answer',
    })[s] ?? 'Finished',
  nutrition: 'Nutrition',
  per100g: 'per 100 g',
  perServing: 'per serving',
  source: 'Source',
  foreignLink: 'A link to another site: not opened here, only its site is shown',
  linkRemoved: 'link removed',
  imageNotLoaded: 'image not loaded',
  uses: 'Uses',
  fromHousehold: 'household recipe',
  suggestion: 'suggestion',
  suggested: 'suggested',
  planned: 'planned',
  provenance: (p: string) =>
    p === 'mcp_exact'
      ? 'Matched a food-composition table entry'
      : p === 'mcp_derived'
        ? 'Worked out by our rules from the ingredients'
        : p === 'llm_estimate'
          ? 'The assistant’s estimate, not checked'
          : p,
  mealPlanSuggestion: 'Meal-plan suggestion',
  missing: 'Missing',
  question: 'Question',
  answer: 'Answer',
  query: 'Query',
  agent: 'Agent',
  model: 'Model',
  maxSteps: 'Max steps',
  autoSteps: 'auto (from the question)',
  autoStepsChosen: 'Max steps (auto)',
  run: 'Run',
  timeline: 'Timeline',
  planGraph: 'Plan',
  download: 'Download run record (JSON)',
  replay: 'Replay a past run',
  runId: 'Run id',
  replayFile: 'or a run log / record file (JSON)',
  load: 'Load',
  duration: 'Duration',
  node: 'Node',
  input: 'Input',
  output: 'Output',
  status: 'Status',
  noAgents: 'No agents are available.',
  error: 'Error',
  skipToMain: 'Skip to content',
  menu: 'Pages',
  memories: 'Household memories',
  memoriesHint:
    'Things the assistant keeps in mind for your household (e.g. “Grandma doesn’t eat spicy food”).',
  memoryText: 'Remember',
  memoriesUsed: 'Memories used',
  approve: 'Approve',
  decline: 'Decline',
  approveRemember: (text: string) => `Remember for your household: “${text}”?`,
  newConversation: 'New conversation',
  earlierInConversation: 'Earlier in this conversation',
  invitationsForYou: 'Invitations to a household',
  noInvitations: 'No invitations for you.',
  invitedAs: (by: string, role: string) => `invited by ${by}, as ${role}`,
  accept: 'Accept',
  declineInvitation: 'Decline',
  inviteMember: 'Invite a member',
  inviteHint:
    'Whoever holds this username sees the invitation when they sign in, and accepts or declines it (7 days).',
  invite: 'Invite',
  invitationSent: (username: string) => `Invitation for ${username} sent.`,
  role: 'Role',
  roleMember: 'member',
  roleOwner: 'owner',
  until: (date: string) => `until ${date}`,
  withdraw: 'Withdraw',
  promptSent: 'Prompt sent',
  promptMessages: (n: number) => `${n} message${n === 1 ? '' : 's'}`,
  promptTokens: (n: number, reported: boolean) => `${n} tokens${reported ? ' (reported)' : ' (estimated)'}`,
  promptRole: (role: string) =>
    ({ system: 'system', user: 'user', assistant: 'assistant', tool: 'tool' })[role] ?? role,
};

export type Texts = typeof EN;

const ZH: Texts = {
  ...ZH_CALM,
  appName: '小家菜单',
  playground: '调试台',
  language: '语言',
  signIn: '登录',
  signOut: '退出',
  username: '用户名',
  password: '密码',
  signInFailed: '登录失败',
  signInLocked: (minutes: number) => `这个用户名或这个网络的登录失败次数太多，请 ${minutes} 分钟后再试。`,
  signInBusy: '现在登录的人太多，请稍后再试。',
  demoLogins: '演示账号：xiaojia / demo-xiaojia，laowang / demo-laowang',
  household: '家庭',
  fridge: '冰箱',
  recipes: '菜谱',
  mealPlan: '本周菜单',
  preferences: '口味与过敏',
  assistant: '助手',
  name: '名称',
  quantity: '数量',
  unit: '单位',
  location: '位置',
  expiresOn: '到期日',
  add: '添加',
  save: '保存',
  cancel: '取消',
  edit: '编辑',
  useUp: '用掉',
  remove: '删除',
  daysLeft: (n: number) => (n < 0 ? `已过期 ${-n} 天` : n === 0 ? '今天到期' : `还剩 ${n} 天`),
  noDate: '无日期',
  empty: '这里还没有内容。',
  fridge_loc: '冷藏',
  freezer_loc: '冷冻',
  pantry_loc: '常温',
  servings: '份数',
  ingredients: '食材',
  ingredientsHint: '每行一个：名称, 数量, 单位',
  steps: '步骤',
  stepsHint: '每行一步',
  tags: '标签',
  newRecipe: '新菜谱',
  week: '周',
  prevWeek: '上一周',
  nextWeek: '下一周',
  date: '日期',
  slot: '餐次',
  recipe: '菜谱',
  breakfast: '早餐',
  lunch: '午餐',
  dinner: '晚餐',
  allergies: '过敏',
  likes: '口味偏好',
  kind: '类型',
  allergy: '过敏',
  preference: '偏好',
  label: '内容',
  person: '家庭成员',
  note: '备注',
  askPlaceholder: '问问冰箱、菜谱、菜单或营养……',
  ask: '提问',
  stop: '停止',
  thinking: '思考',
  calling: '调用',
  observed: '结果',
  demoMode: '演示模式（未配置模型密钥）：回答来自规则演示模型',
  rawAnswer: '非结构化回答：模型输出无法解析，按原文显示',
  degraded: '已降级：由备用方案回答',
  streamingUnavailable: '无法实时推送：一次性显示完整回答',
  statusLabel: (s: string) =>
    `${
      {
        success: '完成',
        cancelled: '已停止',
        stopped: '达到上限而停止',
        error: '出错',
        awaiting_approval: '等待确认',
        awaiting_input: '等待回答',
      }[s] ?? '已结束'
    }`,
  nutrition: '营养',
  per100g: '每 100 克',
  perServing: '每份',
  source: '来源',
  foreignLink: '指向其他网站的链接：不在此打开，只显示网站名',
  linkRemoved: '链接已移除',
  imageNotLoaded: '图片未加载',
  uses: '用到',
  fromHousehold: '家里的菜谱',
  suggestion: '建议',
  suggested: '建议',
  planned: '已安排',
  provenance: (p: string) =>
    p === 'mcp_exact'
      ? '与食物成分表精确匹配'
      : p === 'mcp_derived'
        ? '根据食材按规则推算'
        : p === 'llm_estimate'
          ? '助手估算，未核对'
          : p,
  mealPlanSuggestion: '菜单建议',
  missing: '缺少',
  question: '问题',
  answer: '回答',
  query: '问题',
  agent: '智能体',
  model: '模型',
  maxSteps: '最大步数',
  autoSteps: '自动（按问题估算）',
  autoStepsChosen: '最大步数（自动）',
  run: '运行',
  timeline: '时间线',
  planGraph: '计划',
  download: '下载运行记录（JSON）',
  replay: '回放历史运行',
  runId: '运行 ID',
  replayFile: '或运行日志 / 记录文件（JSON）',
  load: '载入',
  duration: '耗时',
  node: '节点',
  input: '输入',
  output: '输出',
  status: '状态',
  noAgents: '没有可用的 Agent。',
  error: '错误',
  skipToMain: '跳到正文',
  menu: '页面',
  memories: '家里记下的事',
  memoriesHint: '助手为全家记住的事（例如“婆婆不吃辣”），推荐菜时会参考。',
  memoryText: '记住',
  memoriesUsed: '用到的记忆',
  approve: '确认',
  decline: '不用了',
  approveRemember: (text: string) => `为全家记住：“${text}”？`,
  newConversation: '新对话',
  earlierInConversation: '之前的对话',
  invitationsForYou: '邀请你加入的家庭',
  noInvitations: '暂时没有邀请。',
  invitedAs: (by: string, role: string) => `${by} 邀请你成为${role}`,
  accept: '接受',
  declineInvitation: '拒绝',
  inviteMember: '邀请家人',
  inviteHint: '持有这个用户名的人登录后会看到邀请，可以接受或拒绝（7 天内有效）。',
  invite: '邀请',
  invitationSent: (username: string) => `已向 ${username} 发出邀请。`,
  role: '角色',
  roleMember: '成员',
  roleOwner: '管理者',
  until: (date: string) => `${date} 前有效`,
  withdraw: '撤回',
  promptSent: '发给模型的提示',
  promptMessages: (n: number) => `${n} 条消息`,
  promptTokens: (n: number, reported: boolean) => `${n} tokens${reported ? '（模型报告）' : '（估算）'}`,
  promptRole: (role: string) =>
    ({ system: '系统', user: '用户', assistant: '助手', tool: '工具' })[role] ?? role,
};

const STORAGE_KEY = 'kitchen.lang';
let current: Lang = initialLang();
const listeners = new Set<() => void>();

function initialLang(): Lang {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'zh' || saved === 'en') return saved;
  } catch {
    // storage may be off (privacy mode): fall back to the browser language
  }
  const languages = navigator.languages.length > 0 ? navigator.languages : [navigator.language];
  return languages.some((l) => l.toLowerCase().startsWith('zh')) ? 'zh' : 'en';
}

export function lang(): Lang {
  return current;
}

export function t(): Texts {
  return current === 'zh' ? ZH : EN;
}

export function setLang(next: Lang): void {
  current = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // not remembered; still switched for this page
  }
  document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
  for (const listener of listeners) listener();
}

export function onLangChange(listener: () => void): void {
  listeners.add(listener);
}
