import { createRouter, createWebHashHistory } from 'vue-router';

// Hash history: the backend serves www/dist as static files at `/`. The pages live under `/agent/…`
// (seed 001 Task 11); the first routes (`/tools`, `/agents…`, `/chat`) still lead to them.
export const router = createRouter({
  history: createWebHashHistory(),
  routes: [
    { path: '/', redirect: '/agent/tools' },
    { path: '/agent/tools', name: 'tools', component: () => import('../views/ToolsView.vue') },
    { path: '/agent/list', name: 'agents', component: () => import('../views/AgentListView.vue') },
    { path: '/agent/new', name: 'agent-new', component: () => import('../views/AgentEditView.vue') },
    { path: '/agent/:id(\\d+)', name: 'agent-edit', component: () => import('../views/AgentEditView.vue'), props: true },
    { path: '/agent/chat', name: 'chat', component: () => import('../views/ChatView.vue') },
    { path: '/agent/channels', name: 'channels', component: () => import('../views/ChannelsView.vue') },
    { path: '/tools', redirect: '/agent/tools' },
    { path: '/agents', redirect: '/agent/list' },
    { path: '/agents/new', redirect: '/agent/new' },
    { path: '/agents/:id(\\d+)', redirect: (to) => `/agent/${String(to.params.id)}` },
    { path: '/chat', redirect: '/agent/chat' },
  ],
});
