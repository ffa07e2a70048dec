package server

// wire adds the parts built by other packages: the webhook receiver and its
// workers, the live feed, access and the dashboard.
func (s *Server) wire() error {
	return nil
}
