import { createRouter, createWebHashHistory } from 'vue-router';

// Hash history: the backend serves www/dist as static files at `/`, with no SPA fallback needed.
export const router = createRouter({
  history: createWebHashHistory(),
  routes: [
    { path: '/', redirect: '/tools' },
    { path: '/tools', name: 'tools', component: () => import('./views/ToolsView.vue') },
    { path: '/agents', name: 'agents', component: () => import('./views/AgentListView.vue') },
    { path: '/agents/new', name: 'agent-new', component: () => import('./views/AgentEditView.vue') },
    { path: '/agents/:id(\\d+)', name: 'agent-edit', component: () => import('./views/AgentEditView.vue'), props: true },
    { path: '/chat', name: 'chat', component: () => import('./views/ChatView.vue') },
    { path: '/channels', name: 'channels', component: () => import('./views/ChannelsView.vue') },
  ],
});
